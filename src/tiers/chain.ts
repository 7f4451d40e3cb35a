/**
 * The read path, one way down: lower (this colo's Cache API) → regional
 * TierCache (rendezvous-chosen in the reader's region) → upper TierCache →
 * origin. The edge starts at the lower tier; a TierCache, on a miss, goes on
 * from the hop below its own. A title nobody wrote stops at the edge: the
 * page directory says so, and the 404 is kept in the lower tier only. Every hop has a deadline
 * (`LIMITS.tiers.hopTimeoutMs`); a tier that fails, or answers older than
 * the asker's floor, is gone around to the next hop, and only here, where
 * it is counted. With tiers disabled in TOPOLOGY every read goes to the
 * origin, which is the benchmark's `no-tier` scenario.
 */
import { regionalTierFor, tierCacheOf, upperTierFor, type TierIdentity } from "../bindings.ts";
import { topologyOf, type Region } from "../config/topology.ts";
import { LIMITS } from "../limits.ts";
import { etagOf, type Answer, type OriginQuery } from "../origin/answer.ts";
import { notFoundAnswer, renderOrigin } from "../origin/render.ts";
import { pageExists } from "../page/directory.ts";
import type { Colo } from "../sim/colo.ts";
import { crossRegionHop } from "../sim/link-latency.ts";
import { cacheKeyOf, type CacheKey } from "./cache-key.ts";
import { withDeadline } from "./deadline.ts";
import { versionFloor } from "./floor.ts";
import { LowerTier, lowerCounters, type LowerHit } from "./lower-tier.ts";
import type { TierName, TierRead, TierRequest } from "./request.ts";
import type { TierStore } from "./tier-store.ts";

export interface ReadThrough extends TierRead, Colo {}

type Hop = { kind: "tier"; tier: TierIdentity } | { kind: "origin" };

/** Where the asker counts the hops it went around and the origin renders it caused. */
interface HopCounter {
  skipped(level: TierIdentity["level"], why: "failed" | "behind"): void;
  rendered(): void;
}

/** The hops below a level, in the order a miss tries them. */
function hopsBelow(env: Env, level: "edge" | TierIdentity["level"], region: Region, key: string): Hop[] {
  const hops: Hop[] = [];
  if (!topologyOf(env).enabled) return [{ kind: "origin" }];
  if (level === "edge") hops.push({ kind: "tier", tier: regionalTierFor(env, region, key) });
  if (level !== "upper") hops.push({ kind: "tier", tier: upperTierFor(env, key) });
  hops.push({ kind: "origin" });
  return hops;
}

/** Tries each hop in turn; the origin, last, always answers. `required` is the asker's floor for an answer, read when it arrives. */
async function walk(env: Env, hops: Hop[], request: TierRequest, counter: HopCounter, required: (a: Answer) => number, revalidation = false): Promise<TierRead> {
  const from = request.fromRegion;
  for (const hop of hops) {
    if (hop.kind === "origin") {
      await crossRegionHop(env, from, topologyOf(env).upperRegion);
      counter.rendered();
      return { entry: await renderOrigin(env, request.query), servedBy: "origin" };
    }
    const { tier } = hop;
    try {
      await crossRegionHop(env, from, tier.region);
      const read = await withDeadline(tierCacheOf(env, tier).read(request, tier, revalidation), LIMITS.tiers.hopTimeoutMs, `${tier.level} tier ${tier.member}`);
      // A purge that landed while the hop answered can make its answer too old to pass on.
      if (read.entry.status !== 200 || read.entry.version >= required(read.entry)) return read;
      counter.skipped(tier.level, "behind");
    } catch (err) {
      console.warn(`${tier.level} tier skipped`, tier.member, (err as Error)?.message ?? err);
      counter.skipped(tier.level, "failed");
    }
  }
  throw new Error("a tier chain always ends at the origin");
}

const edgeCounter: HopCounter = {
  skipped: (level) => void (level === "regional" ? lowerCounters.skippedRegional++ : lowerCounters.skippedUpper++),
  rendered: () => void lowerCounters.originRenders++,
};

/** A read at the edge: this colo's lower tier, then the chain below it. */
export async function readThroughTiers(env: Env, ctx: { waitUntil(p: Promise<unknown>): void }, at: Colo, query: OriginQuery): Promise<ReadThrough> {
  const key = cacheKeyOf(query);
  const topology = topologyOf(env);
  const below = (request: TierRequest, revalidation = false) => walk(env, hopsBelow(env, "edge", at.region, key.key), request, edgeCounter, () => request.minVersion, revalidation);
  if (!topology.enabled) return { ...(await below({ query, ...key, minVersion: 0, fromRegion: at.region })), ...at };

  const lower = await LowerTier.open(env, at.colo);
  const { hit, floor } = await lower.get(key);
  // Whatever this colo has purged, the tiers below must not hand back either.
  const request: TierRequest = { query, ...key, minVersion: versionFloor(floor, key.mutable), fromRegion: at.region };
  if (hit && hit.state !== "expired") {
    if (hit.state === "fresh") lowerCounters.hit++;
    else {
      lowerCounters.stale++;
      ctx.waitUntil(revalidate(lower, key, hit, below(request, true)));
    }
    return { entry: hit.entry, servedBy: "lower", ...at };
  }
  lowerCounters.miss++;
  // A title nobody wrote is answered here, from the page directory: a flood of made-up titles never reaches a tier.
  const read = (await pageExists(env, key.page)) ? await below(request) : { entry: notFoundAnswer(env, query), servedBy: "origin" as const };
  ctx.waitUntil(lower.put(key, read.entry));
  return { ...read, ...at };
}

/** Stale-while-revalidate: an unchanged answer (same version or ETag) just renews the entry. */
async function revalidate(lower: LowerTier, key: CacheKey, hit: LowerHit, fresh: Promise<TierRead>): Promise<void> {
  const read = await fresh;
  lowerCounters.revalidated++;
  const same = read.entry.version === hit.entry.version || etagOf(read.entry) === etagOf(hit.entry);
  if (same) lowerCounters.renewed++;
  await lower.put(key, same ? hit.entry : read.entry);
}

/** A read at a TierCache: its own entry if new enough, else one fill per key from the hops below. */
export async function readAtTier(env: Env, store: TierStore, self: TierIdentity, request: TierRequest, revalidation: boolean): Promise<TierRead> {
  const minVersion = store.required(request, request.minVersion);
  if (revalidation) store.count("revalidated");
  const cached = store.lookup(request.key, minVersion);
  if (cached) {
    store.count("hit");
    return { entry: cached, servedBy: self.level satisfies TierName };
  }
  store.count("miss");
  let pending = store.inflight.get(request.key);
  if (!pending) {
    pending = fill(env, store, self, request, minVersion).finally(() => store.inflight.delete(request.key));
    store.inflight.set(request.key, pending);
  } else {
    store.count("coalesced");
  }
  const read = await pending;
  // A waiter may need a newer version than the fill it joined was started for.
  if (read.entry.version < minVersion) return fill(env, store, self, request, minVersion);
  return read;
}

async function fill(env: Env, store: TierStore, self: TierIdentity, request: TierRequest, minVersion: number): Promise<TierRead> {
  const counter: HopCounter = {
    skipped: (level, why) => {
      store.count(`skipped_${level}`);
      if (why === "behind") store.count(`behind_${level}`);
    },
    rendered: () => store.count("origin_fetch"),
  };
  const hops = hopsBelow(env, self.level, self.region, request.key);
  const read = await walk(env, hops, { ...request, minVersion, fromRegion: self.region }, counter, (a) => store.required(a));
  store.keep(request, read.entry);
  return read;
}
