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
 * and purge queues apply purges to it directly (src/purge/apply.ts); in production the cache is
 * `caches.default` of the real data centre, which only Cloudflare's purge
 * API reaches from elsewhere (see `src/purge/zone-purge.ts`), so entries carry
 * `Cache-Tag`s and live under the archive's public origin.
 */
import { settingsOf } from "../config/settings.ts";
import { topologyOf, type Topology } from "../config/topology.ts";
import type { Answer } from "../origin/answer.ts";
import { cacheTagsOf, type CacheKey } from "./cache-key.ts";
import { NO_FLOOR, raised, versionFloor, type PageFloor } from "./floor.ts";

/** An entry's own fields travel as headers of the cached response, each typed, beside the answer's headers. */
const FIELD = {
  status: "x-pal-status",
  version: "x-pal-version",
  page: "x-pal-page",
  mutable: "x-pal-mutable",
  storedAt: "x-pal-stored-at",
  revisionId: "x-pal-revision",
  negative: "x-pal-negative",
  filledAt: "x-pal-filled-at",
  /** Which response headers are the answer's own; the Cache API may add others. */
  headers: "x-pal-headers",
  /** The answer's Cache-Control: the response's own says how long the Cache API keeps it. */
  cacheControl: "x-pal-cache-control",
} as const;
const FALLBACK_ORIGIN = "https://lower.palimpsest.invalid";

export type LowerState = "fresh" | "stale" | "expired";

export interface LowerHit {
  entry: Answer;
  state: LowerState;
  filledAt: number;
}

/**
 * Per-isolate counters; the admin endpoint reports the isolate that answers it.
 * `originRenders`: reads the edge answered by rendering at the origin itself
 * (tiers disabled, or every tier gone around); TierCache counts its own.
 */
export const lowerCounters = { hit: 0, miss: 0, stale: 0, revalidated: 0, renewed: 0, floored: 0, skippedRegional: 0, skippedUpper: 0, originRenders: 0 };

/** Floor updates are read-modify-write; one at a time per cache and page in this isolate, so none is lost. */
const floorLocks = new Map<string, Promise<unknown>>();

function toResponse(entry: Answer, filledAt: number, keepSeconds: number): Response {
  const { body, headers: own } = entry;
  const { "cache-control": cacheControl = "", ...rest } = own;
  const headers = new Headers(rest);
  headers.set(FIELD.status, String(entry.status));
  headers.set(FIELD.version, String(entry.version));
  headers.set(FIELD.page, encodeURIComponent(entry.page));
  headers.set(FIELD.mutable, entry.mutable ? "1" : "0");
  headers.set(FIELD.storedAt, String(entry.storedAt));
  headers.set(FIELD.filledAt, String(filledAt));
  headers.set(FIELD.headers, Object.keys(own).join(","));
  headers.set(FIELD.cacheControl, cacheControl);
  if (entry.revisionId !== undefined) headers.set(FIELD.revisionId, String(entry.revisionId));
  if (entry.negative) headers.set(FIELD.negative, "1");
  headers.set("cache-tag", cacheTagsOf(entry).join(","));
  // The Cache API evicts on its own TTL; refresh is tracked separately, by filledAt.
  headers.set("cache-control", `public, max-age=${keepSeconds}`);
  return new Response(body, { headers });
}

/** The entry a cached response holds, without its body yet, or null if it is not one this module wrote. */
function fromResponse(res: Response): { entry: Omit<Answer, "body">; filledAt: number } | null {
  const h = res.headers;
  const number = (name: string) => Number(h.get(name) ?? Number.NaN);
  const [status, version, storedAt, filledAt] = [number(FIELD.status), number(FIELD.version), number(FIELD.storedAt), number(FIELD.filledAt)];
  const page = h.get(FIELD.page);
  if (![status, version, storedAt, filledAt].every(Number.isFinite) || page === null) return null;
  const names = (h.get(FIELD.headers) ?? "").split(",").filter(Boolean);
  const headers = Object.fromEntries(names.map((name) => [name, name === "cache-control" ? (h.get(FIELD.cacheControl) ?? "") : (h.get(name) ?? "")]));
  const revision = h.get(FIELD.revisionId);
  const entry: Omit<Answer, "body"> = {
    status,
    headers,
    version,
    page: decodeURIComponent(page),
    mutable: h.get(FIELD.mutable) === "1",
    storedAt,
    ...(revision === null ? {} : { revisionId: Number(revision) }),
    ...(h.get(FIELD.negative) === "1" ? { negative: true } : {}),
  };
  return { entry, filledAt };
}

export class LowerTier {
  constructor(
    private readonly cache: Cache,
    private readonly name: string,
    private readonly topology: Topology,
    private readonly origin: string,
  ) {}

  /** The lower tier of `colo`: its own named cache in development, the data centre's `caches.default` in production. */
  static async open(env: Env, colo: string): Promise<LowerTier> {
    const [topology, settings] = [topologyOf(env), settingsOf(env)];
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
    return this.#record<PageFloor>(`/__floor/${encodeURIComponent(page)}`).then((f) => f ?? NO_FLOOR);
  }

  async get(key: CacheKey, now = Date.now()): Promise<{ hit: LowerHit | undefined; floor: PageFloor }> {
    const [res, floor, flush] = await Promise.all([this.cache.match(this.#request(key.key)), this.floor(key.page), this.#record<{ at: number }>("/__flush")]);
    if (!res) return { hit: undefined, floor };
    const found = fromResponse(res);
    if (!found || found.entry.version < versionFloor(floor, found.entry.mutable) || found.entry.storedAt < (flush?.at ?? 0)) {
      if (found) lowerCounters.floored++;
      await res.body?.cancel();
      return { hit: undefined, floor };
    }
    const entry: Answer = { ...found.entry, body: new Uint8Array(await res.arrayBuffer()) };
    const { filledAt } = found;
    const age = (now - filledAt) / 1000;
    const t = this.topology;
    // A 404 is kept only briefly and never served stale: the page may be written any moment.
    const state: LowerState = entry.status === 404 ? (age < t.notFoundSeconds ? "fresh" : "expired") : age < t.refreshSeconds ? "fresh" : age < t.maxStaleSeconds ? "stale" : "expired";
    return { hit: { entry, state, filledAt }, floor };
  }

  async delete(key: string): Promise<void> {
    await this.cache.delete(this.#request(key));
  }

  /** Stores a 200 answer, or a cacheable 404; any other answer removes what the colo held for the key. */
  async put(key: CacheKey, entry: Answer, now = Date.now()): Promise<void> {
    const cacheable = entry.status === 200 || (entry.status === 404 && entry.negative === true && this.topology.notFoundSeconds > 0);
    if (!cacheable) return this.delete(key.key);
    const keep = entry.status === 200 ? this.topology.ttlSeconds : this.topology.notFoundSeconds;
    await this.cache.put(this.#request(key.key), toResponse(entry, now, keep));
  }

  /** Raises the page's floors (never lowers them). */
  raiseFloor(page: string, to: Partial<PageFloor>): Promise<void> {
    const lock = `${this.name}\u0000${page}`;
    const run = (floorLocks.get(lock) ?? Promise.resolve()).then(async () => {
      const current = await this.floor(page);
      const next = raised(current, to);
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
}
