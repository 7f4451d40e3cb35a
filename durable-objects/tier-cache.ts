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
import { withDeadline } from "../src/tiers/deadline.ts";
import { Lz4Lru } from "../src/tiers/lz4-lru.ts";
import { tierStub, upperTierFor, type TierIdentity } from "../src/tiers/tier-names.ts";
import { topologyOf } from "../src/config/topology.ts";

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
CREATE TABLE IF NOT EXISTS page_floors (page TEXT PRIMARY KEY, mutable INTEGER NOT NULL, all_keys INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL);
`;

/** In memory, a 404 also carries when it stops being served. */
type EntryMeta = Omit<TierEntry, "body"> & { expiresAt?: number };

interface Floor {
  mutable: number;
  all: number;
}

export interface TierStats {
  counters: Record<string, number>;
  entries: number;
  memoryBytes: number;
  applied: Record<string, { seq: number; at: number }>;
}

/** Test hook: makes the tier refuse all calls, as if it were cut off. */
export interface TierFaults {
  unavailable?: boolean;
  /** Reads wait this long before answering, as if the tier were overloaded. */
  delayMs?: number;
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

  /** Counts not yet written: a read must not pay a SQLite write for a counter, so they go at most once a second (a restart may lose that second). */
  readonly #pending = new Map<string, number>();
  #flushedAt = 0;

  #count(name: string): void {
    this.#pending.set(name, (this.#pending.get(name) ?? 0) + 1);
    if (Date.now() - this.#flushedAt >= 1_000) this.#flushCounters();
  }

  #flushCounters(): void {
    this.#flushedAt = Date.now();
    for (const [name, n] of this.#pending) this.#sql.exec("INSERT INTO counters (name, n) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET n = n + excluded.n", name, n);
    this.#pending.clear();
  }

  #floor(page: string): Floor {
    const row = this.#sql.exec<{ mutable: number; all_keys: number }>("SELECT mutable, all_keys FROM page_floors WHERE page = ?", page).toArray()[0];
    return { mutable: row?.mutable ?? 0, all: row?.all_keys ?? 0 };
  }

  /** The lowest version acceptable for an entry: purges raise it for mutable entries (404s included), removals for all. */
  #required(entry: Pick<TierEntry, "mutable" | "page">, minVersion: number): number {
    const floor = this.#floor(entry.page);
    return Math.max(minVersion, entry.mutable ? floor.mutable : floor.all);
  }

  #lookup(key: string, minVersion: number): TierEntry | undefined {
    const hot = this.#memory.get(key);
    if (hot) {
      const { expiresAt, ...meta } = hot.meta;
      if (expiresAt !== undefined && expiresAt <= Date.now()) return undefined;
      return meta.version >= this.#required(meta, minVersion) ? { ...meta, body: hot.body } : undefined;
    }
    const row = this.#sql.exec<{ meta: string; body: ArrayBuffer; version: number }>("SELECT meta, body, version FROM entries WHERE key = ?", key).toArray()[0];
    if (!row) return undefined;
    const meta = JSON.parse(row.meta) as EntryMeta;
    if (row.version < this.#required(meta, minVersion)) return undefined;
    const body = lz4Decompress(new Uint8Array(row.body));
    this.#memory.set(key, meta, body);
    return { ...meta, body };
  }

  /**
   * Keeps a 200 in memory and SQLite. A 404 for a page nobody wrote is kept
   * in memory only, briefly: reads of made-up titles must not grow storage.
   */
  #store(key: string, entry: TierEntry): void {
    if (entry.body.byteLength > LIMITS.tiers.maxEntryBytes) return;
    const { body, ...meta } = entry;
    if (entry.status === 404 && entry.negative) {
      const ttl = topologyOf(this.env).notFoundSeconds;
      if (ttl > 0) this.#memory.set(key, { ...meta, expiresAt: Date.now() + ttl * 1000 }, body);
      return;
    }
    if (entry.status !== 200) return;
    this.#memory.set(key, meta, body);
    this.#sql.exec(
      "INSERT OR REPLACE INTO entries (key, page, mutable, version, meta, body) VALUES (?, ?, ?, ?, ?, ?)",
      key, entry.page, entry.mutable ? 1 : 0, entry.version, JSON.stringify(meta), lz4Compress(body),
    );
  }

  /** Serves a read from this tier, filling from upstream on a miss. */
  async read(request: TierRequest, self: TierIdentity, revalidation = false): Promise<TierRead> {
    this.#reachable();
    if (this.faults.delayMs) await new Promise((r) => setTimeout(r, this.faults.delayMs));
    const minVersion = this.#required(request, request.minVersion);
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
    let read: TierRead | undefined;
    if (self.level === "regional") {
      const upper = upperTierFor(this.env, request.key);
      try {
        await crossRegionHop(this.env, self.region, upper.region);
        const call = tierStub(this.env, upper).read({ ...request, minVersion, fromRegion: self.region }, upper) as unknown as Promise<TierRead>;
        read = await withDeadline(call, LIMITS.tiers.hopTimeoutMs, `upper tier ${upper.member}`);
      } catch (err) {
        // The upper tier is down or too slow: the origin answers instead, and the skip is counted.
        console.warn("upper tier skipped", upper.member, (err as Error)?.message ?? err);
        this.#count("skipped_upper");
      }
    }
    if (!read) {
      read = { entry: await renderOrigin(this.env, request.query), servedBy: "origin" };
      this.#count("origin_fetch");
    }
    // A purge that landed while we fetched may have made the answer too old to keep.
    const required = this.#required(read.entry, 0);
    if (read.entry.status === 200 && read.entry.version < required) {
      read = { entry: await renderOrigin(this.env, request.query), servedBy: "origin" };
      this.#count("origin_fetch");
    }
    if (read.entry.version >= this.#required(read.entry, 0)) {
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

  /**
   * A write raises the page's floor for mutable entries. A removal (a
   * suppression or a deletion) raises it for every entry, so a revision this
   * tier dropped can never be refilled from a tier that has not caught up.
   */
  #apply(event: PurgeEvent): void {
    const { page, scope, version } = event;
    this.#count("purge");
    if (scope.kind === "everything" || page === null) {
      this.#sql.exec("DELETE FROM entries");
      this.#memory.clear();
      return;
    }
    const all = scope.kind === "mutable" ? 0 : version;
    this.#sql.exec(
      "INSERT INTO page_floors (page, mutable, all_keys) VALUES (?, ?, ?) ON CONFLICT (page) DO UPDATE SET mutable = max(mutable, excluded.mutable), all_keys = max(all_keys, excluded.all_keys)",
      page, version, all,
    );
    if (scope.kind === "mutable") {
      this.#sql.exec("DELETE FROM entries WHERE page = ? AND mutable = 1", page);
      this.#memory.deleteWhere((_, m) => m.page === page && m.mutable);
      return;
    }
    this.#sql.exec("DELETE FROM entries WHERE page = ?", page);
    this.#memory.deleteWhere((_, m) => m.page === page);
  }

  #reachable(): void {
    if (this.faults.unavailable) throw new Error("tier unavailable (injected fault)");
  }

  stats(): TierStats {
    this.#flushCounters();
    const counters = Object.fromEntries(this.#sql.exec<{ name: string; n: number }>("SELECT name, n FROM counters").toArray().map((r) => [r.name, r.n]));
    const applied = Object.fromEntries(
      this.#sql.exec<{ queue: string; seq: number; at: number }>("SELECT queue, seq, at FROM applied").toArray().map((r) => [r.queue, { seq: r.seq, at: r.at }]),
    );
    return { counters, entries: this.#sql.exec<{ n: number }>("SELECT count(*) AS n FROM entries").one().n, memoryBytes: this.#memory.bytes, applied };
  }
}
