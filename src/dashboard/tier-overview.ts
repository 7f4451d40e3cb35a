/**
 * What GET /api/tiers shows: every tier's counters, purge lag and storage
 * against its budget (stored bytes, budget, entries, evictions, SQLite size), every
 * queue's load (those taking new purges and those still draining after the
 * pool shrank), and each region's pool with its autoscaler's recent
 * decisions. Asking wakes every region's sampler.
 */
import type { PoolOverview } from "../purge/pool/pool-store.ts";
import type { QueueLoad } from "../purge/queue-store.ts";
import { allTiers, purgeQueueNames, purgeQueueOf, queuePoolOf, tierCacheOf, tierName } from "../bindings.ts";
import { topologyOf, type Region } from "../config/topology.ts";
import type { TierStats } from "../tiers/tier-store.ts";

export interface TierOverview {
  tiers: Array<TierStats & { tier: string; level: string; region: string; purgeLag: number }>;
  queues: Array<Omit<QueueLoad, "pointers"> & { region: Region; active: boolean }>;
  pools: PoolOverview[];
}

export async function tierOverview(env: Env): Promise<TierOverview> {
  const regions = Object.keys(topologyOf(env).regions) as Region[];
  const [tiers, pools] = await Promise.all([
    Promise.all(
      allTiers(env).map(async (t) => ({
        tier: tierName(t),
        level: t.level,
        region: t.region,
        ...(await tierCacheOf(env, t).stats()),
      })),
    ),
    Promise.all(regions.map((region) => queuePoolOf(env, region).overview(region))),
  ]);
  const queues = await Promise.all(
    pools.flatMap((pool) =>
      purgeQueueNames(pool.region, Math.max(pool.queues, pool.size)).map(async (q, i) => ({
        region: pool.region,
        active: i < pool.size,
        ...(await purgeQueueOf(env, q).load()),
        queue: q.name,
      })),
    ),
  );
  // Purge lag per tier: how far its pointer trails each queue's head.
  const lag = new Map<string, number>();
  for (const q of queues) for (const p of q.pointers) lag.set(p.tier, Math.max(lag.get(p.tier) ?? 0, p.lag));
  return {
    tiers: tiers.map((t) => ({ ...t, purgeLag: lag.get(t.tier) ?? 0 })),
    queues: queues.map(({ pointers: _pointers, ...q }) => q),
    pools,
  };
}
