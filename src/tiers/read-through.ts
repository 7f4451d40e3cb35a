/**
 * The read path through the tiers: lower (this colo's Cache API) → regional
 * TierCache (rendezvous-chosen in the reader's region) → upper TierCache →
 * origin. With tiers disabled in TOPOLOGY every read goes to the origin,
 * which is the benchmark's `no-tier` scenario. A tier that fails or does not
 * answer within `LIMITS.tiers.hopTimeoutMs` is gone around, to the next one
 * down, and the skip is counted; a read never fails because a cache did.
 */
import { settingsOf } from "../config/settings.ts";
import { LIMITS } from "../limits.ts";
import { renderOrigin } from "../origin/render.ts";
import { coloOf } from "../sim/colo.ts";
import { crossRegionHop } from "../sim/link-latency.ts";
import type { CacheKey } from "./cache-key.ts";
import { withDeadline } from "./deadline.ts";
import { etagOf, type OriginQuery, type TierEntry, type TierName, type TierRead, type TierRequest } from "./entry.ts";
import { LowerTier, lowerCounters } from "./lower-tier.ts";
import { regionalTierFor, tierStub, upperTierFor, type TierIdentity } from "./tier-names.ts";
import { topologyOf, type Region } from "../config/topology.ts";

export interface ReadThrough {
  entry: TierEntry;
  servedBy: TierName;
  colo: string;
  region: string;
}

async function tierRead(env: Env, tier: TierIdentity, request: TierRequest, revalidation: boolean): Promise<TierRead> {
  const call = tierStub(env, tier).read(request, tier, revalidation) as unknown as Promise<TierRead>;
  return withDeadline(call, LIMITS.tiers.hopTimeoutMs, `${tier.level} tier ${tier.member}`);
}

/** Regional tier, else the upper tier, else the origin. */
async function fromTiers(env: Env, region: Region, request: TierRequest, revalidation: boolean): Promise<TierRead> {
  const regional = regionalTierFor(env, region, request.key);
  try {
    return await tierRead(env, regional, request, revalidation);
  } catch (err) {
    lowerCounters.skippedRegional++;
    console.warn("regional tier skipped", regional.member, (err as Error)?.message ?? err);
  }
  const upper = upperTierFor(env, request.key);
  try {
    await crossRegionHop(env, region, upper.region);
    return await tierRead(env, upper, request, revalidation);
  } catch (err) {
    lowerCounters.skippedUpper++;
    console.warn("upper tier skipped", upper.member, (err as Error)?.message ?? err);
  }
  lowerCounters.originRenders++;
  return { entry: await renderOrigin(env, request.query), servedBy: "origin" };
}

export async function readThroughTiers(request: Request, env: Env, ctx: { waitUntil(p: Promise<unknown>): void }, key: CacheKey, query: OriginQuery): Promise<ReadThrough> {
  const topology = topologyOf(env);
  const { colo, region } = coloOf(request, env);
  if (!topology.enabled) {
    await crossRegionHop(env, region, topology.upperRegion);
    lowerCounters.originRenders++;
    return { entry: await renderOrigin(env, query), servedBy: "origin", colo, region };
  }
  const lower = await LowerTier.open(colo, topology, settingsOf(env));
  const { hit, floor } = await lower.get(key.key, key.page);
  // Whatever this colo has purged, the tiers above must not hand back either.
  const tierRequest: TierRequest = { query, ...key, minVersion: key.mutable ? floor.mutable : floor.all, fromRegion: region };

  if (hit && hit.state !== "expired") {
    if (hit.state === "fresh") lowerCounters.hit++;
    else {
      lowerCounters.stale++;
      ctx.waitUntil(
        fromTiers(env, region, tierRequest, true).then(async (read) => {
          lowerCounters.revalidated++;
          const same = read.entry.version === hit.entry.version || etagOf(read.entry) === etagOf(hit.entry);
          if (same) lowerCounters.renewed++;
          await lower.put(key.key, same ? hit.entry : read.entry);
        }),
      );
    }
    return { entry: hit.entry, servedBy: "lower", colo, region };
  }
  lowerCounters.miss++;
  const read = await fromTiers(env, region, tierRequest, false);
  ctx.waitUntil(lower.put(key.key, read.entry));
  return { entry: read.entry, servedBy: read.servedBy, colo, region };
}
