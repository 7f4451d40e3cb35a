/**
 * The lower tier: the Cache API of the data centre that took the request.
 * Each entry remembers when it was filled. Younger than `refreshSeconds`:
 * served as is. Older, but younger than `maxStaleSeconds`: served, and
 * revalidated against the regional tier in the background (a matching ETag
 * just renews it). Older still: fetched again before answering. Refresh is
 * independent of the TTL, so a long TTL never delays noticing a write.
 *
 * The Cache API cannot list a page's keys (latest, history pages, `?at=`
 * answers), so purges raise floors instead of deleting keys: a per-page
 * record of the lowest page version still acceptable (one for mutable keys,
 * one for every key), and a flush mark for "everything". Every read checks
 * them, so once a purge is applied here nothing older is served again, not
 * even stale. In development each simulated colo has its own named cache,
 * and purge queues apply purges to it directly; in production the cache is
 * `caches.default` of the real data centre, which only Cloudflare's purge
 * API reaches from elsewhere (see `src/purge/zone-purge.ts`), so entries carry
 * `Cache-Tag`s and live under the archive's public origin.
 */
import type { Settings } from "../config/settings.ts";
import type { PurgeEvent } from "../purge/events.ts";
import { cacheTagsOf, type TierEntry } from "./entry.ts";
import type { Topology } from "../config/topology.ts";

const META = "x-pal-entry";
const FILLED = "x-pal-filled-at";
const FALLBACK_ORIGIN = "https://lower.palimpsest.invalid";

export type LowerState = "fresh" | "stale" | "expired";

export interface LowerHit {
  entry: TierEntry;
  state: LowerState;
  filledAt: number;
}

/** Lowest page versions still served: `mutable` for mutable keys (and 404s), `all` for every key. */
export interface PageFloor {
  mutable: number;
  all: number;
}

/**
 * Per-isolate counters; the admin endpoint reports the isolate that answers it.
 * `originRenders`: reads the edge answered by rendering at the origin itself
 * (tiers disabled, or every tier gone around); TierCache counts its own.
 */
export const lowerCounters = { hit: 0, miss: 0, stale: 0, revalidated: 0, renewed: 0, floored: 0, skippedRegional: 0, skippedUpper: 0, originRenders: 0 };

/** Floor updates are read-modify-write; one at a time per cache and page in this isolate, so none is lost. */
const floorLocks = new Map<string, Promise<unknown>>();

export class LowerTier {
  constructor(
    private readonly cache: Cache,
    private readonly name: string,
    private readonly topology: Topology,
    private readonly origin: string,
  ) {}

  static async open(colo: string, topology: Topology, settings: Settings): Promise<LowerTier> {
    const origin = settings.publicOrigin ?? FALLBACK_ORIGIN;
    if (settings.development) return new LowerTier(await caches.open(`lower:${colo}`), `lower:${colo}`, topology, origin);
    return new LowerTier(caches.default, "default", topology, origin);
  }

  /** The URL an entry is cached under; Cloudflare's purge-by-URL takes the same. */
  static urlOf(origin: string, key: string): string {
    return `${origin}/__tier${key}`;
  }

  #request(path: string): Request {
    return new Request(LowerTier.urlOf(this.origin, path));
  }

  async #record<T>(path: string): Promise<T | null> {
    const res = await this.cache.match(this.#request(path));
    return res ? ((await res.json()) as T) : null;
  }

  async #putRecord(path: string, value: unknown): Promise<void> {
    // Kept as long as any entry it guards can live.
    const headers = { "content-type": "application/json", "cache-control": `public, max-age=${this.topology.ttlSeconds}` };
    await this.cache.put(this.#request(path), new Response(JSON.stringify(value), { headers }));
  }

  floor(page: string): Promise<PageFloor> {
    return this.#record<PageFloor>(`/__floor/${encodeURIComponent(page)}`).then((f) => f ?? { mutable: 0, all: 0 });
  }

  async get(key: string, page: string, now = Date.now()): Promise<{ hit: LowerHit | undefined; floor: PageFloor }> {
    const [res, floor, flush] = await Promise.all([this.cache.match(this.#request(key)), this.floor(page), this.#record<{ at: number }>("/__flush")]);
    if (!res) return { hit: undefined, floor };
    const meta = JSON.parse(res.headers.get(META) ?? "null") as Omit<TierEntry, "body"> | null;
    const filledAt = Number(res.headers.get(FILLED));
    if (!meta || !Number.isFinite(filledAt)) return { hit: undefined, floor };
    if (meta.version < (meta.mutable ? floor.mutable : floor.all) || meta.storedAt < (flush?.at ?? 0)) {
      lowerCounters.floored++;
      await res.body?.cancel();
      return { hit: undefined, floor };
    }
    const entry: TierEntry = { ...meta, body: new Uint8Array(await res.arrayBuffer()) };
    const age = (now - filledAt) / 1000;
    // A 404 is kept only briefly and never served stale: the page may be written any moment.
    const state: LowerState = entry.status === 404 ? (age < this.topology.notFoundSeconds ? "fresh" : "expired") : age < this.topology.refreshSeconds ? "fresh" : age < this.topology.maxStaleSeconds ? "stale" : "expired";
    return { hit: { entry, state, filledAt }, floor };
  }

  async delete(key: string): Promise<void> {
    await this.cache.delete(this.#request(key));
  }

  /** Stores a 200 answer, or a cacheable 404; any other answer removes what the colo held for the key. */
  async put(key: string, entry: TierEntry, now = Date.now()): Promise<void> {
    const cacheable = entry.status === 200 || (entry.status === 404 && entry.negative === true && this.topology.notFoundSeconds > 0);
    if (!cacheable) {
      await this.delete(key);
      return;
    }
    const { body, ...meta } = entry;
    const headers = new Headers({
      [META]: JSON.stringify(meta),
      [FILLED]: String(now),
      "cache-tag": cacheTagsOf(entry).join(","),
      // The Cache API evicts on its own TTL; refresh is tracked separately above.
      "cache-control": `public, max-age=${entry.status === 200 ? this.topology.ttlSeconds : this.topology.notFoundSeconds}`,
    });
    await this.cache.put(this.#request(key), new Response(body, { headers }));
  }

  /** Raises the page's floors (never lowers them). */
  raiseFloor(page: string, to: Partial<PageFloor>): Promise<void> {
    const lock = `${this.name}\u0000${page}`;
    const run = (floorLocks.get(lock) ?? Promise.resolve()).then(async () => {
      const current = await this.floor(page);
      const next = { mutable: Math.max(current.mutable, to.mutable ?? 0, to.all ?? 0), all: Math.max(current.all, to.all ?? 0) };
      if (next.mutable !== current.mutable || next.all !== current.all) await this.#putRecord(`/__floor/${encodeURIComponent(page)}`, next);
    });
    const settled = run.catch(() => undefined);
    floorLocks.set(lock, settled);
    void settled.then(() => floorLocks.get(lock) === settled && floorLocks.delete(lock));
    return run;
  }

  /** Marks everything produced by the origin before `at` as gone. */
  async flush(at: number): Promise<void> {
    const current = await this.#record<{ at: number }>("/__flush");
    if (!current || current.at < at) await this.#putRecord("/__flush", { at });
  }

  /**
   * Applies purge events (delivered by a purge queue, in development). Floors
   * only rise, so replaying an event is harmless. Returns the last sequence.
   */
  async applyPurges(events: PurgeEvent[], flushUpTo: number | undefined, now = Date.now()): Promise<number> {
    let last = flushUpTo ?? 0;
    if (flushUpTo !== undefined) await this.flush(now);
    for (const event of events) {
      const { page, scope, version } = event;
      if (scope.kind === "everything" || page === null) await this.flush(event.createdAt);
      else if (scope.kind === "mutable") await this.raiseFloor(page, { mutable: version });
      else await this.raiseFloor(page, { all: version });
      last = Math.max(last, event.seq);
    }
    return last;
  }
}
