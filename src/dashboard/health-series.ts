/**
 * The tier-health charts' data: the last hour of each region's QueuePool
 * samples, merged. Hit ratio and stale serves are per sample interval, from
 * the difference of a tier's cumulative counters between two samples; purge
 * lag is how far a tier's pointer trails the queue heads, the worst over
 * every region's queues sampled at the same instant. Asking wakes every
 * region's sampler, so an open dashboard keeps its charts moving.
 */
import { allTiers, queuePoolOf, tierName } from "../bindings.ts";
import { errorMessage } from "../lib/errors.ts";
import { topologyOf, type Region } from "../config/topology.ts";
import { LIMITS } from "../limits.ts";
import type { PoolSample } from "../purge/pool/pool-store.ts";

export type HealthSeries = {
  from: number;
  to: number;
  stepMs: number;
  tiers: Array<{
    tier: string;
    level: string;
    region: string;
    points: Array<{ at: number; hitRatio: number | null; staleServes: number; purgeLag: number }>;
  }>;
  queues: Array<{
    region: string;
    points: Array<{ at: number; poolSize: number; depth: number; eventsPerSecond: number }>;
  }>;
};

/**
 * The counters TierCache `stats()` keeps: reads answered from its entries, reads it had to fill, stale entries it
 * served.
 */
const HIT = "hit";
const MISS = "miss";
const STALE = "stale";

/** Growth of a cumulative counter; a tier whose counters restarted from zero grew by what it shows now. */
function grew(now: Record<string, number>, before: Record<string, number>, name: string): number {
  const [a, b] = [now[name] ?? 0, before[name] ?? 0];
  return a >= b ? a - b : a;
}

export async function healthSeries(env: Env): Promise<HealthSeries> {
  const topology = topologyOf(env);
  const stepMs = topology.queuePool.sampleIntervalMs;
  const to = Date.now();
  const from = to - LIMITS.pool.seriesRetentionMs;
  const regions = Object.keys(topology.regions) as Region[];
  // One step before the hour, so its first point has a sample to difference against.
  const byRegion = await Promise.all(
    regions.map((region) =>
      queuePoolOf(env, region)
        .series(region, from - stepMs)
        .catch((err: unknown): PoolSample[] => {
          console.warn("health samples unavailable", region, errorMessage(err));
          return [];
        }),
    ),
  );

  const bucket = (at: number) => Math.floor(at / stepMs);
  const lagAt = new Map<string, Map<number, number>>();
  for (const samples of byRegion) {
    for (const s of samples) {
      for (const [tier, lag] of Object.entries(s.lags)) {
        const series = lagAt.get(tier) ?? lagAt.set(tier, new Map()).get(tier)!;
        series.set(bucket(s.at), Math.max(series.get(bucket(s.at)) ?? 0, lag));
      }
    }
  }

  const points = new Map<string, HealthSeries["tiers"][number]["points"]>();
  for (const samples of byRegion) {
    const last = new Map<string, Record<string, number>>();
    for (const s of samples) {
      for (const t of s.tiers) {
        const before = last.get(t.tier);
        last.set(t.tier, t.counters);
        if (!before || s.at < from) continue;
        const [hits, misses] = [grew(t.counters, before, HIT), grew(t.counters, before, MISS)];
        const series = points.get(t.tier) ?? points.set(t.tier, []).get(t.tier)!;
        series.push({
          at: s.at,
          hitRatio: hits + misses > 0 ? hits / (hits + misses) : null,
          staleServes: grew(t.counters, before, STALE),
          purgeLag: lagAt.get(t.tier)?.get(bucket(s.at)) ?? 0,
        });
      }
    }
  }

  return {
    from,
    to,
    stepMs,
    tiers: allTiers(env).map((t) => ({
      tier: tierName(t),
      level: t.level,
      region: t.region,
      points: points.get(tierName(t)) ?? [],
    })),
    queues: regions.map((region, i) => ({
      region,
      points: byRegion[i]!.filter((s) => s.at >= from).map((s) => ({
        at: s.at,
        poolSize: s.poolSize,
        depth: s.depth,
        eventsPerSecond: s.eventsPerSecond,
      })),
    })),
  };
}
