/**
 * A TierCache's storage: answers LZ4-compressed in a byte-bounded memory LRU
 * and persisted in SQLite, the page floors purges have raised, the last
 * purge applied per queue, and hit/miss counters. The reading policy is
 * the chain's (src/tiers/chain.ts); applying purges is src/purge/apply.ts.
 */
import { lz4Compress, lz4Decompress } from "../codec/index.ts";
import { LIMITS } from "../limits.ts";
import type { Answer } from "../origin/answer.ts";
import { asRevisionAnswer } from "../origin/render.ts";
import { tagsOf } from "../origin/tags.ts";
import { ALL, PurgeMarks, type Verdict } from "./purge-marks.ts";
import { revisionKey, type CacheKey } from "./cache-key.ts";
import { NO_FLOOR, raised, versionFloor, type PageFloor } from "./floor.ts";
import { packBodies, unpackBodies, type PackedMeta } from "./entry-bodies.ts";
import { Lz4Lru } from "./lz4-lru.ts";
import type { TierRead } from "./request.ts";

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
CREATE TABLE IF NOT EXISTS entry_tags (tag TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (tag, key)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entry_tags_by_key ON entry_tags (key);
CREATE TABLE IF NOT EXISTS marks (selector TEXT PRIMARY KEY, hard INTEGER NOT NULL, soft INTEGER NOT NULL) WITHOUT ROWID;
`;

/** In memory, a 404 also carries when it stops being served. */
type EntryMeta = PackedMeta & { expiresAt?: number };

export interface TierStats {
  counters: Record<string, number>;
  entries: number;
  memoryBytes: number;
  applied: Record<string, { seq: number; at: number }>;
}

/** An entry found, and whether a soft purge made it stale: served only while revalidating. */
export interface Found {
  answer: Answer;
  stale: boolean;
}

export class TierStore {
  readonly #memory = new Lz4Lru<EntryMeta>(LIMITS.tiers.memoryBytes);
  /** Every purge mark this tier holds, in memory: checked on every read. */
  #marks!: PurgeMarks;
  /** The last sequence applied of each queue, in memory: every purge delivery asks, and must not pay a SQLite read for it. */
  #applied!: Map<string, number>;
  /** Fills in flight, by key: concurrent misses for one key share one. */
  readonly inflight = new Map<string, Promise<TierRead>>();
  /** Counts not yet written: a read must not pay a SQLite write for a counter, so they go at most once a second (a restart may lose that second). */
  readonly #pending = new Map<string, number>();
  #flushedAt = 0;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly notFoundSeconds: number,
  ) {
    storage.sql.exec(SCHEMA);
    this.#loadPurgeState();
  }

  /** The marks and applied sequences, as SQLite holds them: at start, and after a transaction that changed them rolled back. */
  #loadPurgeState(): void {
    this.#marks = new PurgeMarks(
      this.#sql.exec<{ selector: string; hard: number; soft: number }>("SELECT selector, hard, soft FROM marks").toArray().map((r) => [r.selector, { hard: r.hard, soft: r.soft }]),
    );
    this.#applied = new Map(this.#sql.exec<{ queue: string; seq: number }>("SELECT queue, seq FROM applied").toArray().map((r) => [r.queue, r.seq]));
  }

  get #sql(): SqlStorage {
    return this.storage.sql;
  }

  /** Runs `fn` in one SQLite transaction; if it throws, the in-memory marks and applied sequences go back to what was committed. */
  transaction<T>(fn: () => T): T {
    try {
      return this.storage.transactionSync(fn);
    } catch (err) {
      this.#loadPurgeState();
      throw err;
    }
  }

  count(name: string): void {
    this.#pending.set(name, (this.#pending.get(name) ?? 0) + 1);
    if (Date.now() - this.#flushedAt >= 1_000) this.#flushCounters();
  }

  #flushCounters(): void {
    this.#flushedAt = Date.now();
    for (const [name, n] of this.#pending) this.#sql.exec("INSERT INTO counters (name, n) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET n = n + excluded.n", name, n);
    this.#pending.clear();
  }

  floor(page: string): PageFloor {
    const row = this.#sql.exec<{ mutable: number; all_keys: number }>("SELECT mutable, all_keys FROM page_floors WHERE page = ?", page).toArray()[0];
    return row ? { mutable: row.mutable, all: row.all_keys } : NO_FLOOR;
  }

  /** The lowest version acceptable for this kind of entry: the asker's minimum or this tier's floor, whichever is higher. */
  required(entry: Pick<CacheKey, "mutable" | "page">, minVersion = 0): number {
    return Math.max(minVersion, versionFloor(this.floor(entry.page), entry.mutable));
  }

  /** What this tier's purge marks say of an answer for `key`. */
  verdict(key: string, answer: Pick<Answer, "storedAt" | "tags" | "page">): Verdict {
    return this.#marks.verdict({ key, tags: tagsOf(answer), storedAt: answer.storedAt });
  }

  /**
   * The entry for a key, if its version is at least `minVersion` (the
   * caller's {@link required}, which already holds this tier's floor) and no
   * hard purge mark covers it.
   */
  lookup(key: string, minVersion: number): Found | undefined {
    const found = this.#find(key);
    if (!found || found.version < minVersion) return undefined;
    const verdict = this.verdict(key, found);
    return verdict === "purged" ? undefined : { answer: found, stale: verdict === "stale" };
  }

  #find(key: string): Answer | undefined {
    const hot = this.#memory.get(key);
    if (hot) {
      const { expiresAt, ...meta } = hot.meta;
      if (expiresAt !== undefined && expiresAt <= Date.now()) return undefined;
      return unpackBodies(meta, hot.body);
    }
    const row = this.#sql.exec<{ meta: string; body: ArrayBuffer }>("SELECT meta, body FROM entries WHERE key = ?", key).toArray()[0];
    if (!row) return undefined;
    const meta = JSON.parse(row.meta) as EntryMeta;
    const bytes = lz4Decompress(new Uint8Array(row.body));
    this.#memory.set(key, meta, bytes);
    return unpackBodies(meta, bytes);
  }

  /**
   * Keeps an answer, if it is at least as new as this tier's floor: a 200 in
   * memory and SQLite, and a latest 200 under its revision's key as well, so
   * the first read of a new revision after a write does not go to the origin.
   * A 404 for a page nobody wrote stays in memory only, briefly: reads of
   * made-up titles must not grow storage.
   */
  keep(key: CacheKey, answer: Answer): void {
    if (answer.version < this.required(answer) || this.verdict(key.key, answer) === "purged") return;
    this.#put(key.key, answer);
    if (key.mutable && answer.status === 200 && answer.revisionId !== undefined) {
      this.#put(revisionKey(key.page, answer.revisionId).key, asRevisionAnswer(answer));
    }
  }

  #put(key: string, answer: Answer): void {
    if (answer.body.byteLength > LIMITS.tiers.maxEntryBytes) return;
    // A revision's br body goes with it: stored, evicted and purged together.
    const { meta, bytes: body } = packBodies(answer);
    if (answer.status === 404 && answer.negative) {
      if (this.notFoundSeconds > 0) this.#memory.set(key, { ...meta, expiresAt: Date.now() + this.notFoundSeconds * 1000 }, body);
      return;
    }
    if (answer.status !== 200) return;
    this.#memory.set(key, meta, body);
    this.#sql.exec(
      "INSERT OR REPLACE INTO entries (key, page, mutable, version, meta, body) VALUES (?, ?, ?, ?, ?, ?)",
      key, answer.page, answer.mutable ? 1 : 0, answer.version, JSON.stringify(meta), lz4Compress(body),
    );
    this.#sql.exec("DELETE FROM entry_tags WHERE key = ?", key);
    for (const tag of tagsOf(answer)) this.#sql.exec("INSERT OR IGNORE INTO entry_tags (tag, key) VALUES (?, ?)", tag, key);
  }

  /**
   * Raises purge marks; a hard purge also drops what they cover now, found
   * through the indexes (by key, by tag, by key range for a prefix), never by
   * a scan. Entries kept only in memory (brief 404s) are refused by the marks
   * when next read. Only inside {@link transaction}, which puts the in-memory
   * marks back if it rolls back.
   */
  mark(selectors: string[], at: number, soft: boolean): void {
    for (const selector of selectors) {
      const mark = this.#marks.raise(selector, at, soft);
      if (mark) this.#sql.exec("INSERT OR REPLACE INTO marks (selector, hard, soft) VALUES (?, ?, ?)", selector, mark.hard, mark.soft);
      if (soft) continue;
      if (selector === ALL) this.dropAll();
      else this.#dropKeys(this.#keysUnder(selector));
    }
    const folded = this.#marks.fold(LIMITS.purge.maxMarks);
    if (folded) {
      for (const selector of folded.removed) this.#sql.exec("DELETE FROM marks WHERE selector = ?", selector);
      this.#sql.exec("INSERT OR REPLACE INTO marks (selector, hard, soft) VALUES (?, ?, ?)", ALL, folded.all.hard, folded.all.soft);
    }
  }

  #keysUnder(selector: string): string[] {
    const colon = selector.indexOf(":");
    const [kind, value] = [selector.slice(0, colon), selector.slice(colon + 1)];
    const keys = (sql: string, ...args: string[]) => this.#sql.exec<{ key: string }>(sql, ...args).toArray().map((r) => r.key);
    // A revision's key also covers its dcb variants (`?dcb=<hash>`; '>' follows '=').
    if (kind === "key") return keys("SELECT key FROM entries WHERE key = ? OR (key >= ? AND key < ?)", value, `${value}?dcb=`, `${value}?dcb>`);
    if (kind === "tag") return keys("SELECT key FROM entry_tags WHERE tag = ?", value);
    // At path segments: the prefix itself, below it (`/`), or with a query (`?`); '0' and '@' follow '/' and '?'.
    return keys("SELECT key FROM entries WHERE key = ? OR (key >= ? AND key < ?) OR (key >= ? AND key < ?)", value, `${value}/`, `${value}0`, `${value}?`, `${value}@`);
  }

  #dropKeys(keys: string[]): void {
    for (const key of keys) {
      this.#sql.exec("DELETE FROM entries WHERE key = ?", key);
      this.#sql.exec("DELETE FROM entry_tags WHERE key = ?", key);
      this.#memory.delete(key);
    }
  }

  raiseFloor(page: string, to: Partial<PageFloor>): void {
    const next = raised(this.floor(page), to);
    this.#sql.exec("INSERT OR REPLACE INTO page_floors (page, mutable, all_keys) VALUES (?, ?, ?)", page, next.mutable, next.all);
  }

  /** Drops a page's entries: its mutable ones, or all of them. */
  dropPage(page: string, mutableOnly: boolean): void {
    this.#sql.exec(`DELETE FROM entry_tags WHERE key IN (SELECT key FROM entries WHERE page = ?${mutableOnly ? " AND mutable = 1" : ""})`, page);
    this.#sql.exec(`DELETE FROM entries WHERE page = ?${mutableOnly ? " AND mutable = 1" : ""}`, page);
    this.#memory.deleteWhere((_, m) => m.page === page && (!mutableOnly || m.mutable));
  }

  dropAll(): void {
    this.#sql.exec("DELETE FROM entries");
    this.#sql.exec("DELETE FROM entry_tags");
    this.#memory.clear();
  }

  appliedSeq(queue: string): number {
    return this.#applied.get(queue) ?? 0;
  }

  /** Only inside {@link transaction}, which puts the in-memory sequences back if it rolls back. */
  setApplied(queue: string, seq: number, at = Date.now()): void {
    this.#sql.exec("INSERT OR REPLACE INTO applied (queue, seq, at) VALUES (?, ?, ?)", queue, seq, at);
    this.#applied.set(queue, seq);
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
