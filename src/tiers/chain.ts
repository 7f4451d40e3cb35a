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
import { errorMessage } from "../lib/errors.ts";
import { topologyOf, type Region } from "../config/topology.ts";
import { LIMITS } from "../limits.ts";
import { etagOf, type Answer, type OriginQuery } from "../origin/answer.ts";
import { renderWithCompanions } from "../origin/latest-and-index.ts";
import { notFoundAnswer, renderOrigin } from "../origin/render.ts";
import { pageExists } from "../page/directory.ts";
import type { Colo } from "../config/colo.ts";
import { crossRegionHop } from "./link-latency.ts";
import { cacheKeyOf, type CacheKey } from "./cache-key.ts";
import { keepCopies } from "./copies.ts";
import { withDeadline } from "./deadline.ts";
import { versionFloor } from "./floor.ts";
import { LowerTier, lowerCounters, type AnswerMeta, type LowerHit, type StoredBody } from "./lower-tier.ts";
import type { TierName, TierRead, TierRequest } from "./request.ts";
import type { TierStore } from "./tier-store.ts";
import { tagsOf } from "../origin/tags.ts";
import { HopTimer, type HopTimings } from "../http/server-timing.ts";

export interface ReadThrough extends TierRead, Colo {}

/** A fresh lower-tier hit whose body is still in the Cache API's response, for a route that sends it as stored. */
export interface UnreadThrough extends Colo {
  entry: AnswerMeta;
  servedBy: "lower";
  stored: StoredBody;
  timings?: HopTimings;
}

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

/**
 * Tries each hop in turn; the origin, last, always answers. `accepts` is the
 * asker's floor and purge marks, applied to an answer when it arrives. A
 * tier asking (`keeps`) also gets what the origin renders beside the answer
 * (src/origin/latest-and-index.ts), to keep; the edge, which has no use for
 * it, has the answer rendered alone.
 */
async function walk(
  env: Env,
  hops: Hop[],
  request: TierRequest,
  counter: HopCounter,
  accepts: (a: Answer) => boolean,
  revalidation = false,
  keeps = false,
): Promise<TierRead> {
  const from = request.fromRegion;
  for (const hop of hops) {
    if (hop.kind === "origin") {
      await crossRegionHop(env, from, topologyOf(env).upperRegion);
      counter.rendered();
      const timer = new HopTimer();
      if (!keeps) {
        const entry = await timer.time("origin", () => renderOrigin(env, request.query, timer));
        return { entry, servedBy: "origin", timings: timer.timings };
      }
      const { answer, also } = await timer.time("origin", () => renderWithCompanions(env, request.query, timer));
      return { entry: answer, servedBy: "origin", timings: timer.timings, ...(also.length > 0 ? { also } : {}) };
    }
    const { tier } = hop;
    try {
      const start = performance.now();
      await crossRegionHop(env, from, tier.region);
      const read = await withDeadline(
        tierCacheOf(env, tier).read(request, tier, revalidation),
        LIMITS.tiers.hopTimeoutMs,
        `${tier.level} tier ${tier.member}`,
      );
      // The tiers' own time: the round trip less the origin's inside it (a tier below counted its own).
      const timer = new HopTimer();
      timer.merge(read.timings);
      timer.add("tier", performance.now() - start - (read.timings?.origin ?? 0) - (read.timings?.tier ?? 0));
      // A purge that landed here, or one the hop has not applied yet, can make its answer too old to pass on.
      if (read.entry.status !== 200 || accepts(read.entry)) return { ...read, timings: timer.timings };
      counter.skipped(tier.level, "behind");
    } catch (err) {
      console.warn(`${tier.level} tier skipped`, tier.member, errorMessage(err));
      counter.skipped(tier.level, "failed");
    }
  }
  throw new Error("a tier chain always ends at the origin");
}

const edgeCounter: HopCounter = {
  skipped: (level) => void (level === "regional" ? lowerCounters.skippedRegional++ : lowerCounters.skippedUpper++),
  rendered: () => void lowerCounters.originRenders++,
};

/**
 * A read at the edge: this colo's lower tier, then the chain below it. With `leaveBody`, a fresh
 * lower-tier hit of a 200 comes back with its body unread (`UnreadThrough`): for a route that sends
 * it identity, so a 304 never reads it and a 200 streams it from the Cache API without a copy.
 * With `newerThan`, only an answer of a later page version will do (the asker found the one it had
 * too old): every tier holding no newer one asks the hop below it, so the origin renders it only if
 * no tier has it.
 */
export async function readThroughTiers(
  env: Env,
  ctx: { waitUntil(p: Promise<unknown>): void },
  at: Colo,
  query: OriginQuery,
  options?: { newerThan: number },
): Promise<ReadThrough>;
export async function readThroughTiers(
  env: Env,
  ctx: { waitUntil(p: Promise<unknown>): void },
  at: Colo,
  query: OriginQuery,
  options: { leaveBody: true },
): Promise<ReadThrough | UnreadThrough>;
export async function readThroughTiers(
  env: Env,
  ctx: { waitUntil(p: Promise<unknown>): void },
  at: Colo,
  query: OriginQuery,
  options: { leaveBody?: boolean; newerThan?: number } = {},
): Promise<ReadThrough | UnreadThrough> {
  const key = cacheKeyOf(query);
  const topology = topologyOf(env);
  const hops = hopsBelow(env, "edge", at.region, key.key);
  if (!topology.enabled)
    return {
      ...(await walk(env, hops, { query, ...key, minVersion: 0, fromRegion: at.region }, edgeCounter, () => true)),
      ...at,
    };

  const timer = new HopTimer();
  const lowerStart = performance.now();
  const lower = await LowerTier.open(env, at.colo);
  const got = await lower.get(key, Date.now(), options.leaveBody === true);
  timer.add("lower", performance.now() - lowerStart);
  const { floor, marks } = got;
  const newerThan = options.newerThan ?? -1;
  const hit = got.hit && got.hit.entry.version > newerThan ? got.hit : undefined;
  if (got.hit && !hit && "stored" in got.hit) await got.hit.stored.stream.cancel();
  const below = (request: TierRequest, revalidation = false) =>
    walk(
      env,
      hops,
      request,
      edgeCounter,
      (a) =>
        a.version >= request.minVersion &&
        marks.verdict({ key: key.key, tags: tagsOf(a), storedAt: a.storedAt }) !== "purged",
      revalidation,
    );
  // Whatever this colo has purged, the tiers below must not hand back either.
  const minVersion = Math.max(versionFloor(floor, key.mutable), newerThan + 1);
  const request: TierRequest = { query, ...key, minVersion, fromRegion: at.region };
  if (hit && "stored" in hit) {
    lowerCounters.hit++;
    return { entry: hit.entry, servedBy: "lower", stored: hit.stored, timings: timer.timings, ...at };
  }
  if (hit && hit.state !== "expired") {
    if (hit.state === "fresh") lowerCounters.hit++;
    else {
      lowerCounters.stale++;
      ctx.waitUntil(revalidate(lower, key, hit, below(request, true)));
    }
    return { entry: hit.entry, servedBy: "lower", timings: timer.timings, ...at };
  }
  lowerCounters.miss++;
  // A title nobody wrote is answered here, from the page directory: a flood of made-up titles never reaches a tier.
  const read = (await timer.time("directory", () => pageExists(env, key.page)))
    ? await below(request)
    : { entry: notFoundAnswer(env, query), servedBy: "origin" as const };
  ctx.waitUntil(lower.put(key, read.entry));
  // What the origin rendered beside it (a page's latest or memento index) is this colo's to keep too.
  const { also, ...answered } = read;
  for (const companion of also ?? []) ctx.waitUntil(lower.put(cacheKeyOf(companion.query), companion.answer));
  timer.merge(read.timings);
  return { ...answered, timings: timer.timings, ...at };
}

/**
 * Stale-while-revalidate. The answer replaces the stale entry unless it is
 * older; an unchanged one (same version or ETag) is counted as a renewal.
 * Either way the entry now dates from the answer, so a soft purge's mark no
 * longer covers it.
 */
async function revalidate(lower: LowerTier, key: CacheKey, hit: LowerHit, fresh: Promise<TierRead>): Promise<void> {
  const read = await fresh;
  lowerCounters.revalidated++;
  const same = read.entry.version === hit.entry.version || etagOf(read.entry) === etagOf(hit.entry);
  if (same) lowerCounters.renewed++;
  const newer =
    read.entry.version > hit.entry.version ||
    (read.entry.version === hit.entry.version && read.entry.storedAt >= hit.entry.storedAt);
  await lower.put(key, newer ? read.entry : hit.entry);
}

/**
 * A read at a TierCache: its own entry if new enough, else one fill per key
 * from the hops below. An entry a soft purge made stale is served while a
 * fill replaces it in the background, unless the asker is itself
 * revalidating: then only the hops below can answer.
 */
export async function readAtTier(
  env: Env,
  store: TierStore,
  self: TierIdentity,
  request: TierRequest,
  revalidation: boolean,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<TierRead> {
  const minVersion = store.required(request, request.minVersion);
  if (revalidation) store.count("revalidated");
  const cached = store.lookup(request.key, minVersion);
  const at: TierFill = { env, store, self, request, minVersion, waitUntil };
  if (cached && !(cached.stale && revalidation)) {
    store.count(cached.stale ? "stale" : "hit");
    if (cached.stale) waitUntil(fillOnce(at, true).catch(() => undefined));
    return { entry: cached.answer, servedBy: self.level satisfies TierName };
  }
  store.count("miss");
  if (store.inflight.has(request.key)) store.count("coalesced");
  const read = await fillOnce(at, cached !== undefined);
  // A waiter may need a newer version than the fill it joined was started for.
  if (read.entry.version < minVersion) return fill(at, false);
  return read;
}

/** A fill's context: the TierCache that fills, the read it fills for, and the floor that read needs. */
interface TierFill {
  env: Env;
  store: TierStore;
  self: TierIdentity;
  request: TierRequest;
  minVersion: number;
  waitUntil: (p: Promise<unknown>) => void;
}

/** The fill in flight for this key, or a new one: concurrent misses share one. */
function fillOnce(at: TierFill, revalidating: boolean): Promise<TierRead> {
  return at.store.inflight.run(at.request.key, () => fill(at, revalidating));
}

/**
 * Fills from the hops below; `revalidating` (replacing a stale entry) asks them not to answer from stale entries of
 * their own.
 */
async function fill(
  { env, store, self, request, minVersion, waitUntil }: TierFill,
  revalidating: boolean,
): Promise<TierRead> {
  const counter: HopCounter = {
    skipped: (level, why) => {
      store.count(`skipped_${level}`);
      if (why === "behind") store.count(`behind_${level}`);
    },
    rendered: () => {
      store.count("origin_fetch");
      store.count(`origin_fetch_${request.query.kind}`);
    },
  };
  const hops = hopsBelow(env, self.level, self.region, request.key);
  const accepts = (a: Answer) => a.version >= store.required(a) && store.verdict(request.key, a) !== "purged";
  const read = await walk(
    env,
    hops,
    { ...request, minVersion, fromRegion: self.region },
    counter,
    accepts,
    revalidating,
    true,
  );
  store.keep(request, read.entry);
  // What came with it (a latest's revision copy, the answers the origin made beside it) is kept too.
  keepCopies(env, store, self, request.query, read, waitUntil);
  return read;
}
