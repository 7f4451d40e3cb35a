/**
 * The read path through the tiers: lower (this colo's Cache API) → regional
 * TierCache (rendezvous-chosen in the reader's region) → upper TierCache →
 * origin. With tiers disabled in TOPOLOGY every read goes to the origin,
 * which is the benchmark's `no-tier` scenario.
 */
import { renderOrigin } from "../origin/render.ts";
import { coloOf } from "../sim/colo.ts";
import { crossRegionHop } from "../sim/link-latency.ts";
import type { CacheKey } from "./cache-key.ts";
import type { OriginQuery, TierEntry, TierName, TierRead } from "./entry.ts";
import { localFloor } from "./local-floor.ts";
import { LowerTier, lowerCounters } from "./lower-tier.ts";
import { regionalTierFor, tierStub } from "./tier-names.ts";
import { topologyOf } from "./topology.ts";

export interface ReadThrough {
  entry: TierEntry;
  servedBy: TierName;
  colo: string;
  region: string;
}

export async function readThroughTiers(request: Request, env: Env, ctx: { waitUntil(p: Promise<unknown>): void }, key: CacheKey, query: OriginQuery): Promise<ReadThrough> {
  const topology = topologyOf(env);
  const { colo, region } = coloOf(request, env);
  if (!topology.enabled) {
    await crossRegionHop(env, region, topology.upperRegion);
    return { entry: await renderOrigin(env, query), servedBy: "origin", colo, region };
  }
  const lower = await LowerTier.open(colo, topology);
  const floor = key.mutable ? localFloor(colo, key.page) : 0;
  const cached = await lower.get(key.key);
  const hit = cached && cached.entry.version >= floor ? cached : undefined;
  const regional = regionalTierFor(env, region, key.key);
  const fromRegional = async (revalidation: boolean): Promise<TierRead> =>
    (await tierStub(env, regional).read({ query, ...key, minVersion: floor, fromRegion: region }, regional, revalidation)) as unknown as TierRead;

  if (hit && hit.state !== "expired") {
    if (hit.state === "fresh") lowerCounters.hit++;
    else {
      lowerCounters.stale++;
      ctx.waitUntil(
        fromRegional(true).then(async (read) => {
          lowerCounters.revalidated++;
          const same = read.entry.version === hit.entry.version || etag(read.entry) === etag(hit.entry);
          if (same) lowerCounters.renewed++;
          await lower.put(key.key, same ? hit.entry : read.entry);
        }),
      );
    }
    return { entry: hit.entry, servedBy: "lower", colo, region };
  }
  lowerCounters.miss++;
  const read = await fromRegional(false);
  ctx.waitUntil(lower.put(key.key, read.entry));
  return { entry: read.entry, servedBy: read.servedBy, colo, region };
}

function etag(entry: TierEntry): string | undefined {
  return entry.headers.find(([k]) => k === "etag")?.[1];
}
