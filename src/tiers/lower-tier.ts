/**
 * The lower tier: the Cache API of the data centre that took the request.
 * Each entry remembers when it was filled. Younger than `refreshSeconds`:
 * served as is. Older, but younger than `maxStaleSeconds`: served, and
 * revalidated against the regional tier in the background (a matching ETag
 * just renews it). Older still: fetched again before answering. Refresh is
 * independent of the TTL, so a long TTL never delays noticing a write.
 *
 * The Cache API cannot list a page's keys (latest, history pages, `?at=`
 * answers) nor find entries by tag, so purges leave records instead of
 * deleting keys: a write's purge raises a per-page floor (the lowest page
 * version still acceptable, one for mutable keys, one for every key); an
 * operator's purge raises purge marks (src/tiers/purge-marks.ts), all kept
 * in one record per colo. Every read checks both, so once a purge is applied
 * here nothing older is served again, not even stale; a soft purge's mark
 * makes a covered entry stale instead, served while it is revalidated. In development each simulated colo has its own
 * named cache, and purge queues apply purges to it directly (src/purge/apply.ts); in production the cache is
 * `caches.default` of the real data centre, which only Cloudflare's purge API reaches from elsewhere (see
 * `src/purge/zone-purge.ts`), so entries carry `Cache-Tag`s and live under the archive's public origin.
 */
import { settingsOf } from "../config/settings.ts";
import { topologyOf, type Topology } from "../config/topology.ts";
import type { Answer } from "../origin/answer.ts";
import { cacheTagsOf, type CacheKey } from "./cache-key.ts";
import { packBodies, unpackBodies, type CodedLengths, type PackedMeta } from "./entry-bodies.ts";
import { NO_FLOOR, raised, versionFloor, type PageFloor } from "./floor.ts";
import { PurgeMarks, type Mark } from "./purge-marks.ts";
import { tagsOf } from "../origin/tags.ts";
import { LIMITS } from "../limits.ts";
import { sleep } from "../lib/backoff.ts";

/** An entry's own fields travel as headers of the cached response, each typed, beside the answer's headers. */
const FIELD = {
  status: "x-pal-status",
  version: "x-pal-version",
  page: "x-pal-page",
  mutable: "x-pal-mutable",
  storedAt: "x-pal-stored-at",
  revisionId: "x-pal-revision",
  negative: "x-pal-negative",
  /** The answer's cache tags (never holding a comma), which purge marks match. */
  tags: "x-pal-tags",
  filledAt: "x-pal-filled-at",
  /** Which response headers are the answer's own; the Cache API may add others. */
  headers: "x-pal-headers",
  /** The answer's Cache-Control: the response's own says how long the Cache API keeps it. */
  cacheControl: "x-pal-cache-control",
  /** Lengths of the coded bodies stored after the identity body, as JSON (src/tiers/entry-bodies.ts). */
  coded: "x-pal-coded",
  /** The stored body's length, so a hit sent as it is stored knows its Content-Length without reading it. */
  length: "x-pal-length",
} as const;
const FALLBACK_ORIGIN = "https://lower.palimpsest.invalid";

export type LowerState = "fresh" | "stale" | "expired";

export interface LowerHit {
  entry: Answer;
  state: LowerState;
  filledAt: number;
}

/** An answer without its body: what a hit whose body is left unread carries. */
export type AnswerMeta = Omit<Answer, "body" | "encoded">;

/** A body still in the Cache API's response: read only if it is sent, and then as a stream. */
export interface StoredBody {
  stream: ReadableStream<Uint8Array>;
  length: number;
}

/** A fresh hit of a 200 whose body was left unread (`get`'s `leaveBody`). */
export interface UnreadHit {
  entry: AnswerMeta;
  state: "fresh";
  filledAt: number;
  stored: StoredBody;
}

/**
 * Per-isolate counters; the admin endpoint reports the isolate that answers it.
 * `originRenders`: reads the edge answered by rendering at the origin itself
 * (tiers disabled, or every tier gone around); TierCache counts its own.
 */
export const lowerCounters = {
  hit: 0,
  miss: 0,
  stale: 0,
  revalidated: 0,
  renewed: 0,
  floored: 0,
  skippedRegional: 0,
  skippedUpper: 0,
  originRenders: 0,
};

/**
 * Floor and mark updates are read-modify-write: one at a time per cache and
 * record in this isolate, so none is lost. The lock holds no promise: many
 * Durable Objects share the isolate, and one must never await a promise
 * made in another's I/O context (workerd refuses, and the update hangs), so
 * a waiter polls on its own timer. A holder that died mid-update is
 * overtaken after `STALE_LOCK_MS`.
 */
const recordLocks = new Map<string, number>();
const STALE_LOCK_MS = 5_000;

const MARKS = "/__marks";

/**
 * Development only: every simulated colo lives in this one isolate, which
 * applies all of their purges, so their floor and mark records live in its
 * memory rather than as Cache API records. That spares the simulation two
 * Cache API reads per request and a read and a write per colo per purge,
 * work production does not do: there, Cloudflare's purge API purges every
 * colo, and many isolates share a colo's cache, so records are cache entries.
 * Memory does not survive a restart while cached entries do, so a restarted
 * isolate takes nothing its colos cached before it started: each key is
 * refetched once, and nothing purged comes back. (Only the lower tier's own
 * entries: the TierCaches keep their marks in SQLite.)
 */
const devRecords = new Map<string, unknown>();
let devStartedAt: number | undefined;

function toResponse(entry: Answer, filledAt: number, keepSeconds: number): Response {
  const { headers: own } = entry;
  const { meta, bytes: body } = packBodies(entry);
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
  if (entry.tags) headers.set(FIELD.tags, entry.tags.map(encodeURIComponent).join(","));
  if (meta.coded) headers.set(FIELD.coded, JSON.stringify(meta.coded));
  headers.set(FIELD.length, String(body.byteLength));
  headers.set("cache-tag", cacheTagsOf(entry).join(","));
  // The Cache API evicts on its own TTL; refresh is tracked separately, by filledAt.
  headers.set("cache-control", `public, max-age=${keepSeconds}`);
  return new Response(body, { headers });
}

/** The entry a cached response holds, without its body yet, or null if it is not one this module wrote. */
function fromResponse(res: Response): { entry: PackedMeta; filledAt: number; length: number | null } | null {
  const h = res.headers;
  const number = (name: string) => Number(h.get(name) ?? Number.NaN);
  const [status, version, storedAt, filledAt] = [
    number(FIELD.status),
    number(FIELD.version),
    number(FIELD.storedAt),
    number(FIELD.filledAt),
  ];
  const page = h.get(FIELD.page);
  if (![status, version, storedAt, filledAt].every(Number.isFinite) || page === null) return null;
  const names = (h.get(FIELD.headers) ?? "").split(",").filter(Boolean);
  const headers = Object.fromEntries(
    names.map((name) => [name, name === "cache-control" ? (h.get(FIELD.cacheControl) ?? "") : (h.get(name) ?? "")]),
  );
  const revision = h.get(FIELD.revisionId);
  const tags = h.get(FIELD.tags);
  const coded = h.get(FIELD.coded);
  const entry: PackedMeta = {
    status,
    headers,
    version,
    page: decodeURIComponent(page),
    mutable: h.get(FIELD.mutable) === "1",
    storedAt,
    ...(revision === null ? {} : { revisionId: Number(revision) }),
    ...(h.get(FIELD.negative) === "1" ? { negative: true } : {}),
    ...(tags === null ? {} : { tags: tags.split(",").filter(Boolean).map(decodeURIComponent) }),
    ...(coded === null ? {} : { coded: JSON.parse(coded) as CodedLengths }),
  };
  // Entries stored before the length was recorded have none: their body is read to be sent.
  const length = h.get(FIELD.length) === null ? null : number(FIELD.length);
  return { entry, filledAt, length: length !== null && Number.isSafeInteger(length) && length >= 0 ? length : null };
}

export class LowerTier {
  constructor(
    private readonly cache: Cache,
    private readonly name: string,
    private readonly topology: Topology,
    private readonly origin: string,
    /** Where records live instead of the cache, if this isolate is their only writer (development). */
    private readonly memo: Map<string, unknown> | null = null,
  ) {}

  /** The lower tier of `colo`: its own named cache in development, the data centre's `caches.default` in production. */
  static async open(env: Env, colo: string): Promise<LowerTier> {
    const [topology, settings] = [topologyOf(env), settingsOf(env)];
    const origin = settings.publicOrigin ?? FALLBACK_ORIGIN;
    if (settings.development) {
      // Not at module load: global scope sees a frozen clock.
      devStartedAt ??= Date.now();
      return new LowerTier(await caches.open(`lower:${colo}`), `lower:${colo}`, topology, origin, devRecords);
    }
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
    if (this.memo) return (this.memo.get(`${this.name}\u0000${path}`) as T | undefined) ?? null;
    const res = await this.cache.match(this.#request(path));
    return res ? await res.json() : null;
  }

  async #putRecord(path: string, value: unknown): Promise<void> {
    if (this.memo) {
      this.memo.set(`${this.name}\u0000${path}`, value);
      return;
    }
    // Kept as long as any entry it guards can live.
    const headers = {
      "content-type": "application/json",
      "cache-control": `public, max-age=${this.topology.ttlSeconds}`,
    };
    await this.cache.put(this.#request(path), new Response(JSON.stringify(value), { headers }));
  }

  floor(page: string): Promise<PageFloor> {
    return this.#record<PageFloor>(`/__floor/${encodeURIComponent(page)}`).then((f) => f ?? NO_FLOOR);
  }

  /** This colo's purge marks. */
  async marks(): Promise<PurgeMarks> {
    return new PurgeMarks(Object.entries((await this.#record<Record<string, Mark>>(MARKS)) ?? {}));
  }

  /**
   * The colo's entry for `key` if it may still be served, with the page's floor and the colo's marks.
   * With `leaveBody`, a fresh 200 holding only its identity body comes back with that body unread
   * (`stored`): a route that answers 304, or sends the body on as it is, never reads or copies it.
   * Anything else, a stale hit included (revalidation may store it again), is read whole.
   */
  async get(key: CacheKey, now?: number): Promise<{ hit: LowerHit | undefined; floor: PageFloor; marks: PurgeMarks }>;
  async get(
    key: CacheKey,
    now: number,
    leaveBody: boolean,
  ): Promise<{ hit: LowerHit | UnreadHit | undefined; floor: PageFloor; marks: PurgeMarks }>;
  async get(
    key: CacheKey,
    now = Date.now(),
    leaveBody = false,
  ): Promise<{ hit: LowerHit | UnreadHit | undefined; floor: PageFloor; marks: PurgeMarks }> {
    const [res, floor, marks] = await Promise.all([
      this.cache.match(this.#request(key.key)),
      this.floor(key.page),
      this.marks(),
    ]);
    if (!res) return { hit: undefined, floor, marks };
    const found = fromResponse(res);
    const verdict = found && marks.verdict({ key: key.key, tags: tagsOf(found.entry), storedAt: found.entry.storedAt });
    // In development, a restarted isolate has lost the records that guarded what its colos cached before.
    const orphaned = found !== null && this.memo !== null && found.filledAt < (devStartedAt ?? 0);
    if (!found || orphaned || found.entry.version < versionFloor(floor, found.entry.mutable) || verdict === "purged") {
      if (found) lowerCounters.floored++;
      await res.body?.cancel();
      return { hit: undefined, floor, marks };
    }
    const { filledAt } = found;
    const age = (now - filledAt) / 1000;
    const t = this.topology;
    const status = found.entry.status;
    // A 404 is kept only briefly and never served stale: the page may be written any moment.
    let state: LowerState =
      status === 404
        ? age < t.notFoundSeconds
          ? "fresh"
          : "expired"
        : age < t.refreshSeconds
          ? "fresh"
          : age < t.maxStaleSeconds
            ? "stale"
            : "expired";
    // Soft-purged: served while revalidating (a 404 is never served stale).
    if (verdict === "stale" && state === "fresh") state = status === 404 ? "expired" : "stale";
    if (leaveBody && state === "fresh" && status === 200 && !found.entry.coded && found.length !== null && res.body) {
      const { coded: _none, ...entry } = found.entry;
      return {
        hit: {
          entry,
          state,
          filledAt,
          stored: { stream: res.body as ReadableStream<Uint8Array>, length: found.length },
        },
        floor,
        marks,
      };
    }
    const entry: Answer = unpackBodies(found.entry, new Uint8Array(await res.arrayBuffer()));
    return { hit: { entry, state, filledAt }, floor, marks };
  }

  async delete(key: string): Promise<void> {
    await this.cache.delete(this.#request(key));
  }

  /** Stores a 200 answer, or a cacheable 404; any other answer removes what the colo held for the key. */
  async put(key: CacheKey, entry: Answer, now = Date.now()): Promise<void> {
    const cacheable =
      entry.status === 200 || (entry.status === 404 && entry.negative === true && this.topology.notFoundSeconds > 0);
    if (!cacheable) return this.delete(key.key);
    const keep = entry.status === 200 ? this.topology.ttlSeconds : this.topology.notFoundSeconds;
    await this.cache.put(this.#request(key.key), toResponse(entry, now, keep));
  }

  /** Runs a record's read-modify-write after any other on the same record in this isolate. */
  async #locked(record: string, update: () => Promise<void>): Promise<void> {
    const lock = `${this.name}\u0000${record}`;
    for (let wait = 1; ; wait = Math.min(wait * 2, 20)) {
      const since = recordLocks.get(lock);
      if (since === undefined || Date.now() - since > STALE_LOCK_MS) break;
      await sleep(wait);
    }
    const mine = Date.now();
    recordLocks.set(lock, mine);
    try {
      await update();
    } finally {
      if (recordLocks.get(lock) === mine) recordLocks.delete(lock);
    }
  }

  /** Raises the page's floors (never lowers them). */
  raiseFloor(page: string, to: Partial<PageFloor>): Promise<void> {
    const record = `/__floor/${encodeURIComponent(page)}`;
    return this.#locked(record, async () => {
      const current = await this.floor(page);
      const next = raised(current, to);
      if (next.mutable !== current.mutable || next.all !== current.all) await this.#putRecord(record, next);
    });
  }

  /**
   * Raises purge marks (what each covers, produced before its `at`, is gone or, soft, stale) in one read and write of
   * the colo's marks record.
   */
  markAll(raises: Array<{ selectors: string[]; at: number; soft: boolean }>): Promise<void> {
    return this.#locked(MARKS, async () => {
      const marks = await this.marks();
      let changed = false;
      for (const { selectors, at, soft } of raises)
        for (const selector of selectors) changed = marks.raise(selector, at, soft) !== undefined || changed;
      // One record is read on every request: keep it small, folding the oldest into `all`.
      marks.fold(LIMITS.purge.maxLowerMarks);
      if (changed) await this.#putRecord(MARKS, Object.fromEntries(marks.entries()));
    });
  }
}
