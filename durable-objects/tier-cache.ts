/**
 * TierCache: a regional or upper cache tier. Pull-through on a miss
 * (regional → upper → origin), with concurrent misses for one key coalesced
 * into a single upstream fetch. Entries are LZ4-compressed in a byte-bounded
 * memory LRU and persisted in SQLite. Purges arrive from PurgeQueues (or
 * their Fanouts) and apply idempotently: the tier remembers the last
 * sequence applied per queue, and a page's purge raises a version floor so
 * no older copy can be refilled from a tier that has not caught up yet.
 */
import { DurableObject } from "cloudflare:workers";
import { lz4Compress, lz4Decompress } from "../src/codec/index.ts";
import { LIMITS } from "../src/limits.ts";
import { renderOrigin } from "../src/origin/render.ts";
import type { PurgeEvent } from "../src/purge/events.ts";
import { crossRegionHop } from "../src/sim/link-latency.ts";
import type { TierEntry, TierRead, TierRequest } from "../src/tiers/entry.ts";
import { revisionKey } from "../src/tiers/cache-key.ts";
import { Lz4Lru } from "../src/tiers/lz4-lru.ts";
import { tierStub, upperTierFor, type TierIdentity } from "../src/tiers/tier-names.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS entries (
  key TEXT PRIMARY KEY,
  page TEXT NOT NULL,
  mutable INTEGER NOT NULL,
  version INTEGER NOT NULL,
  meta TEXT NOT NULL,
  body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_by_page ON entries (page, mutable);
CREATE TABLE IF NOT EXISTS applied (queue TEXT PRIMARY KEY, seq INTEGER NOT NULL, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS floors (page TEXT PRIMARY KEY, version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL);
`;

type EntryMeta = Omit<TierEntry, "body">;

export interface TierStats {
  counters: Record<string, number>;
  entries: number;
  memoryBytes: number;
  applied: Record<string, { seq: number; at: number }>;
}

/** Test hook: makes the tier refuse all calls, as if it were cut off. */
export interface TierFaults {
  unavailable?: boolean;
}

export class TierCache extends DurableObject<Env> {
  faults: TierFaults = {};
  readonly #sql: SqlStorage;
  readonly #memory = new Lz4Lru<EntryMeta>(LIMITS.tiers.memoryBytes);
  readonly #inflight = new Map<string, Promise<TierRead>>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec(SCHEMA);
  }

  #count(name: string): void {
    this.#sql.exec("INSERT INTO counters (name, n) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET n = n + 1", name);
  }

  #floor(page: string): number {
    return this.#sql.exec<{ version: number }>("SELECT version FROM floors WHERE page = ?", page).toArray()[0]?.version ?? 0;
  }

  #lookup(key: string, minVersion: number): TierEntry | undefined {
    const hot = this.#memory.get(key);
    if (hot) return hot.meta.version >= minVersion ? { ...hot.meta, body: hot.body } : undefined;
    const row = this.#sql.exec<{ meta: string; body: ArrayBuffer; version: number }>("SELECT meta, body, version FROM entries WHERE key = ?", key).toArray()[0];
    if (!row || row.version < minVersion) return undefined;
    const meta = JSON.parse(row.meta) as EntryMeta;
    const body = lz4Decompress(new Uint8Array(row.body));
    this.#memory.set(key, meta, body);
    return { ...meta, body };
  }

  #store(key: string, entry: TierEntry): void {
    if (entry.status !== 200 || entry.body.byteLength > LIMITS.tiers.maxEntryBytes) return;
    const { body, ...meta } = entry;
    this.#memory.set(key, meta, body);
    this.#sql.exec(
      "INSERT OR REPLACE INTO entries (key, page, mutable, version, meta, body) VALUES (?, ?, ?, ?, ?, ?)",
      key, entry.page, entry.mutable ? 1 : 0, entry.version, JSON.stringify(meta), lz4Compress(body),
    );
  }

  /** Serves a read from this tier, filling from upstream on a miss. */
  async read(request: TierRequest, self: TierIdentity, revalidation = false): Promise<TierRead> {
    this.#reachable();
    // Version floors guard mutable keys; a specific revision never changes (suppression purges it by key).
    const minVersion = request.mutable ? Math.max(request.minVersion, this.#floor(request.page)) : 0;
    if (revalidation) this.#count("revalidated");
    const cached = this.#lookup(request.key, minVersion);
    if (cached) {
      this.#count("hit");
      return { entry: cached, servedBy: self.level };
    }
    this.#count("miss");
    let pending = this.#inflight.get(request.key);
    if (!pending) {
      pending = this.#fill(request, self, minVersion).finally(() => this.#inflight.delete(request.key));
      this.#inflight.set(request.key, pending);
    } else {
      this.#count("coalesced");
    }
    const read = await pending;
    // A waiter may need a newer version than the fetch it joined was started for.
    if (read.entry.version < minVersion) return this.#fill(request, self, minVersion);
    return read;
  }

  async #fill(request: TierRequest, self: TierIdentity, minVersion: number): Promise<TierRead> {
    let read: TierRead;
    if (self.level === "regional") {
      const upper = upperTierFor(this.env, request.key);
      await crossRegionHop(this.env, self.region, upper.region);
      read = (await tierStub(this.env, upper).read({ ...request, minVersion, fromRegion: self.region }, upper)) as unknown as TierRead;
    } else {
      read = { entry: await renderOrigin(this.env, request.query), servedBy: "origin" };
      this.#count("origin_fetch");
    }
    // A purge that landed while we fetched may have made the answer too old to keep.
    const floor = request.mutable ? this.#floor(request.page) : 0;
    if (read.entry.status === 200 && read.entry.version < floor) {
      read = { entry: await renderOrigin(this.env, request.query), servedBy: "origin" };
      this.#count("origin_fetch");
    }
    if (read.entry.version >= floor) {
      this.#store(request.key, read.entry);
      this.#storeAsRevision(request, read.entry);
    }
    return read;
  }

  /**
   * A latest (or ?at=) answer is also that revision's immutable answer: keep
   * it under the revision's key too, so the first read of the new revision
   * after a write does not go back to the origin.
   */
  #storeAsRevision(request: TierRequest, entry: TierEntry): void {
    if (request.query.kind !== "latest" || entry.status !== 200) return;
    const id = Number(entry.headers.find(([k]) => k === "x-revision-id")?.[1]);
    if (!Number.isSafeInteger(id)) return;
    const key = revisionKey(request.page, id);
    const headers = entry.headers.map(([k, v]): [string, string] => [k, k === "cache-control" ? "public, max-age=31536000, immutable" : v]);
    this.#store(key.key, { ...entry, headers, mutable: false });
  }

  /**
   * Applies purge events from one queue, in order, skipping any already
   * applied. `flushUpTo` means the tier fell behind the queue's retained log:
   * drop everything and resume after that sequence. Returns the last applied sequence.
   */
  applyPurges(queue: string, events: PurgeEvent[], flushUpTo?: number): number {
    this.#reachable();
    const now = Date.now();
    return this.ctx.storage.transactionSync(() => {
      let applied = this.#sql.exec<{ seq: number }>("SELECT seq FROM applied WHERE queue = ?", queue).toArray()[0]?.seq ?? 0;
      if (flushUpTo !== undefined && flushUpTo > applied) {
        this.#sql.exec("DELETE FROM entries");
        this.#memory.clear();
        this.#count("flush");
        applied = flushUpTo;
      }
      for (const event of events) {
        if (event.seq <= applied) continue;
        this.#apply(event);
        applied = event.seq;
      }
      this.#sql.exec("INSERT OR REPLACE INTO applied (queue, seq, at) VALUES (?, ?, ?)", queue, applied, now);
      return applied;
    });
  }

  #apply(event: PurgeEvent): void {
    const { page, scope } = event;
    this.#count("purge");
    if (scope.kind === "everything" || page === null) {
      this.#sql.exec("DELETE FROM entries");
      this.#memory.clear();
      return;
    }
    this.#sql.exec("INSERT INTO floors (page, version) VALUES (?, ?) ON CONFLICT (page) DO UPDATE SET version = max(version, excluded.version)", page, event.version);
    if (scope.kind === "page") {
      this.#sql.exec("DELETE FROM entries WHERE page = ?", page);
      this.#memory.deleteWhere((_, m) => m.page === page);
      return;
    }
    this.#sql.exec("DELETE FROM entries WHERE page = ? AND mutable = 1", page);
    const revisionKeys = new Set(scope.kind === "revisions" ? scope.revisions.map((id) => `/page/${page}/${id}`) : []);
    for (const key of revisionKeys) this.#sql.exec("DELETE FROM entries WHERE key = ?", key);
    this.#memory.deleteWhere((key, m) => m.page === page && (m.mutable || revisionKeys.has(key)));
  }

  #reachable(): void {
    if (this.faults.unavailable) throw new Error("tier unavailable (injected fault)");
  }

  stats(): TierStats {
    const counters = Object.fromEntries(this.#sql.exec<{ name: string; n: number }>("SELECT name, n FROM counters").toArray().map((r) => [r.name, r.n]));
    const applied = Object.fromEntries(
      this.#sql.exec<{ queue: string; seq: number; at: number }>("SELECT queue, seq, at FROM applied").toArray().map((r) => [r.queue, { seq: r.seq, at: r.at }]),
    );
    return { counters, entries: this.#sql.exec<{ n: number }>("SELECT count(*) AS n FROM entries").one().n, memoryBytes: this.#memory.bytes, applied };
  }
}
