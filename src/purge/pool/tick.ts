/**
 * One tick of a region's autoscaler: ask every queue of the pool for its load,
 * decide whether to resize, and sample the region's tiers for the health
 * charts. The QueuePool's alarm and its `tick()` RPC both run this.
 */
import type { QueueLoad } from "../queue-store.ts";
import { errorMessage } from "../../lib/errors.ts";
import {
  purgeQueueName,
  purgeQueueNames,
  purgeQueueOf,
  tierCacheOf,
  tierName,
  type TierIdentity,
} from "../../bindings.ts";
import { tierMembers, topologyOf, type Region } from "../../config/topology.ts";
import { LIMITS } from "../../limits.ts";
import { decide, type QueueSample } from "./decide.ts";
import type { PoolSample, PoolStore, TickOutcome, TierCounters } from "./pool-store.ts";

/** The tiers a region's pool samples: its own regional tiers, and the upper tier if it lives here. */
export function sampledTiers(env: Env, region: Region): TierIdentity[] {
  const topology = topologyOf(env);
  const regional = tierMembers(topology, region).map((m): TierIdentity => ({
    level: "regional",
    region,
    member: m.id,
  }));
  const upper =
    region === topology.upperRegion
      ? tierMembers(topology, region).map((m): TierIdentity => ({ level: "upper", region, member: m.id }))
      : [];
  return [...regional, ...upper];
}

async function loadsOf(env: Env, region: Region, count: number): Promise<Array<QueueLoad | null>> {
  return Promise.all(
    purgeQueueNames(region, count).map((q) =>
      purgeQueueOf(env, q)
        .load()
        .then((load) => ({ ...load, queue: q.name }))
        .catch((err: unknown) => {
          console.warn("queue load report failed", q.name, errorMessage(err));
          return null;
        }),
    ),
  );
}

async function tierCounters(env: Env, region: Region): Promise<TierCounters[]> {
  const sampled = await Promise.all(
    sampledTiers(env, region).map(async (t) => {
      try {
        return {
          tier: tierName(t),
          level: t.level,
          region: t.region,
          counters: (await tierCacheOf(env, t).stats()).counters,
        };
      } catch (err) {
        // A tier that is down has no point in this sample; the chart shows the gap.
        console.warn("tier stats failed", tierName(t), errorMessage(err));
        return null;
      }
    }),
  );
  return sampled.filter((t) => t !== null);
}

export async function runTick(
  env: Env,
  store: PoolStore,
  storage: DurableObjectStorage,
  region: Region,
  now = Date.now(),
): Promise<TickOutcome> {
  const config = topologyOf(env).queuePool;
  const size = store.size(config.min);
  const known = Math.min(store.known(config.min), config.max);
  const [loads, tiers] = await Promise.all([loadsOf(env, region, known), tierCounters(env, region)]);

  const sample = (l: QueueLoad): QueueSample => ({
    queue: l.queue,
    eventsPerSecond: l.eventsPerSecond,
    backlog: l.backlog,
  });
  const active = loads.slice(0, size);
  const decision = decide({
    size,
    band: config,
    loads: active.filter((l) => l !== null).map(sample),
    unreachable: active.flatMap((l, i) => (l ? [] : [purgeQueueName(region, i)])),
    now,
    lastChangeAt: store.lastChangeAt(),
    cooldownMs: LIMITS.pool.cooldownMs,
  });
  const outcome: TickOutcome = { ...decision, at: now, region, loads: loads.filter((l) => l !== null).map(sample) };
  store.record(outcome, storage);

  // A queue above the pool that has delivered everything it holds needs no more sampling; one still draining does.
  const draining = loads.map((l, i) => (l === null || l.backlog > 0 ? i + 1 : 0));
  store.setKnown(Math.max(decision.to, size, ...draining));

  const lags: Record<string, number> = {};
  for (const l of loads)
    for (const p of l?.pointers ?? [])
      if (!p.tier.startsWith("lower/")) lags[p.tier] = Math.max(lags[p.tier] ?? 0, p.lag);
  const present = loads.filter((l) => l !== null);
  const point: PoolSample = {
    at: now,
    poolSize: decision.to,
    depth: present.reduce((n, l) => n + l.backlog, 0),
    eventsPerSecond: present.reduce((n, l) => n + l.eventsPerSecond, 0),
    tiers,
    lags,
  };
  store.addSample(point);
  return outcome;
}
