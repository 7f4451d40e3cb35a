/**
 * A TierCache's storage: answers LZ4-compressed in a byte-bounded memory LRU
 * and persisted in SQLite within a byte budget, the page floors purges have
 * raised, the last purge applied per queue, and hit/miss counters. The
 * reading policy is the chain's (src/tiers/chain.ts); applying purges is
 * src/purge/apply.ts.
 *
 * SQLite tables (a tier holds copies only: losing any entry costs a refill):
 *
 * | table | row | kept until |
 * |---|---|---|
 * | entries | one answer: key, page, mutable, version, meta (JSON), body (LZ4 of packed bodies) | purged, or evicted |
 * | entry_tags | (tag, key) for every purge tag of an entry | its entry goes |
 * | entry_use | per entry, the bytes it stores and when it was last read (ms) | its entry goes |
 * | usage | one row: bytes and entries in `entry_use`, summed as they change | always |
 * | page_floors, marks, applied | what purges raised, and the last sequence applied per queue | never evicted |
 * | counters | hit, miss, evicted, ... | always |
 * | schema_version | one row: how many of {@link MIGRATIONS} have run (src/storage/migrations.ts) | always |
 *
 * The budget: an entry's bytes are its key, meta, LZ4 body and tag rows.
 * A put that would take `usage.bytes` past the budget first evicts the
 * least recently read entries (with their tag rows, and from memory). An
 * entry's read time is set when it is stored, and a read moves it on only
 * when it is more than {@link TOUCH_MS} old, in a batch with the counters
 * (at most once a second): a hit costs no SQLite write. Read times live in
 * `entry_use`, not `entries`, because updating any column of a row rewrites
 * the row, body and all. Floors and marks are not entries: eviction never
 * touches them, so what remains is purged as before.
 */
import { lz4Compress, lz4Decompress } from "../codec/index.ts";
import { LIMITS } from "../limits.ts";
import { SingleFlight } from "../lib/single-flight.ts";
import { migrate, type Migration } from "../storage/migrations.ts";
import type { Answer } from "../origin/answer.ts";
import { tagsOf } from "../origin/tags.ts";
import { ALL, PurgeMarks, type Verdict } from "./purge-marks.ts";
import type { CacheKey } from "./cache-key.ts";
import { NO_FLOOR, raised, versionFloor, type PageFloor } from "./floor.ts";
import { packBodies, unpackBodies, type PackedMeta } from "./entry-bodies.ts";
import { Lz4Lru } from "./lz4-lru.ts";
import type { TierRead } from "./request.ts";

/**
 * Numbered schema changes (src/storage/migrations.ts), each run once, in
 * order: the first is the whole schema. To change it, append one; never
 * edit one that has shipped.
 */
const MIGRATIONS: readonly Migration[] = [
  // 1: the tables, with the budget's running total at nothing stored.
  `CREATE TABLE entries (
     key TEXT PRIMARY KEY,
     page TEXT NOT NULL,
     mutable INTEGER NOT NULL,
     version INTEGER NOT NULL,
     meta TEXT NOT NULL,
     body BLOB NOT NULL
   );
   CREATE INDEX entries_by_page ON entries (page, mutable);
   CREATE TABLE applied (queue TEXT PRIMARY KEY, seq INTEGER NOT NULL, at INTEGER NOT NULL);
   CREATE TABLE page_floors (page TEXT PRIMARY KEY, mutable INTEGER NOT NULL, all_keys INTEGER NOT NULL);
   CREATE TABLE counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL);
   CREATE TABLE entry_tags (tag TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (tag, key)) WITHOUT ROWID;
   CREATE INDEX entry_tags_by_key ON entry_tags (key);
   CREATE TABLE marks (selector TEXT PRIMARY KEY, hard INTEGER NOT NULL, soft INTEGER NOT NULL) WITHOUT ROWID;
   CREATE TABLE entry_use (key TEXT PRIMARY KEY, size INTEGER NOT NULL, read_at INTEGER NOT NULL) WITHOUT ROWID;
   CREATE INDEX entry_use_by_read ON entry_use (read_at);
   CREATE TABLE usage (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL, entries INTEGER NOT NULL);
   INSERT INTO usage (id, bytes, entries) VALUES (1, 0, 0);`,
];

/**
 * A read moves an entry's stored read time on only when it is older than this, in ms: a hit writes nothing, and
 * eviction is least recently read to within a minute.
 */
const TOUCH_MS = 60_000;

const utf8 = new TextEncoder();
/** What an entry costs against the budget: its row's key, meta and body, and a row per tag. */
function entrySize(key: string, meta: string, body: Uint8Array, tags: readonly string[]): number {
  const keyBytes = utf8.encode(key).byteLength;
  return (
    keyBytes +
    utf8.encode(meta).byteLength +
    body.byteLength +
    tags.reduce((n, tag) => n + utf8.encode(tag).byteLength + keyBytes, 0)
  );
}

/** In memory, a 404 also carries when it stops being served, and a stored entry the read time SQLite holds for it. */
type EntryMeta = PackedMeta & { expiresAt?: number; readAt?: number };

export interface TierStats {
  counters: Record<string, number>;
  /** Entries in SQLite. */
  entries: number;
  /** Bytes those entries cost against the budget (key, meta, LZ4 body, tag rows). */
  storedBytes: number;
  /** This tier's budget for `storedBytes` (`LIMITS.tiers.storedBytes`). */
  budgetBytes: number;
  /** Entries evicted for room since the tier began counting. */
  evictions: number;
  /** SQLite's own size of this tier's database, in bytes: entries, floors, marks, indexes and free pages. */
  databaseBytes: number;
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
  /**
   * The last sequence applied of each queue, in memory: every purge delivery asks, and must not pay a SQLite read for
   * it.
   */
  #applied!: Map<string, number>;
  /** Fills in flight, by key: concurrent misses for one key share one. */
  readonly inflight = new SingleFlight<string, TierRead>();
  /**
   * Counts not yet written: a read must not pay a SQLite write for a counter, so they go at most once a second (a
   * restart may lose that second).
   */
  readonly #pending = new Map<string, number>();
  /** Read times not yet written, by key: they go with the counters. */
  readonly #touches = new Map<string, number>();
  #flushedAt = 0;
  /** The `usage` row, in memory: every put asks. */
  #usage!: { bytes: number; entries: number };
  #budget: number;

  /** `budgetBytes`: what entries may cost in SQLite; TierCache gives `LIMITS.tiers.storedBytes`. */
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly notFoundSeconds: number,
    budgetBytes: number = LIMITS.tiers.storedBytes,
  ) {
    this.#budget = budgetBytes;
    migrate(storage, MIGRATIONS);
    this.#loadState();
  }

  /**
   * The marks, applied sequences and usage, as SQLite holds them: at start, and after a transaction that changed them
   * rolled back.
   */
  #loadState(): void {
    this.#usage = this.#sql
      .exec<{ bytes: number; entries: number }>("SELECT bytes, entries FROM usage WHERE id = 1")
      .one();
    this.#marks = new PurgeMarks(
      this.#sql
        .exec<{ selector: string; hard: number; soft: number }>("SELECT selector, hard, soft FROM marks")
        .toArray()
        .map((r) => [r.selector, { hard: r.hard, soft: r.soft }]),
    );
    this.#applied = new Map(
      this.#sql
        .exec<{ queue: string; seq: number }>("SELECT queue, seq FROM applied")
        .toArray()
        .map((r) => [r.queue, r.seq]),
    );
  }

  get #sql(): SqlStorage {
    return this.storage.sql;
  }

  /**
   * Runs `fn` in one SQLite transaction; if it throws, the in-memory marks and applied sequences go back to what was
   * committed.
   */
  transaction<T>(fn: () => T): T {
    try {
      return this.storage.transactionSync(fn);
    } catch (err) {
      this.#loadState();
      throw err;
    }
  }

  count(name: string, by = 1): void {
    this.#pending.set(name, (this.#pending.get(name) ?? 0) + by);
    if (Date.now() - this.#flushedAt >= 1_000) this.#flush();
  }

  /** Writes the counts and read times held back. */
  #flush(): void {
    this.#flushedAt = Date.now();
    for (const [name, n] of this.#pending)
      this.#sql.exec(
        "INSERT INTO counters (name, n) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET n = n + excluded.n",
        name,
        n,
      );
    this.#pending.clear();
    for (const [key, at] of this.#touches) this.#sql.exec("UPDATE entry_use SET read_at = ? WHERE key = ?", at, key);
    this.#touches.clear();
  }

  floor(page: string): PageFloor {
    const row = this.#sql
      .exec<{ mutable: number; all_keys: number }>("SELECT mutable, all_keys FROM page_floors WHERE page = ?", page)
      .toArray()[0];
    return row ? { mutable: row.mutable, all: row.all_keys } : NO_FLOOR;
  }

  /**
   * The lowest version acceptable for this kind of entry: the asker's minimum or this tier's floor, whichever is
   * higher.
   */
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
      const { expiresAt, readAt, ...meta } = hot.meta;
      if (expiresAt !== undefined && expiresAt <= Date.now()) return undefined;
      // The memory LRU hands back the meta it holds: the new read time stays with it.
      if (readAt !== undefined) hot.meta.readAt = this.#touch(key, readAt);
      return unpackBodies(meta, hot.body);
    }
    const row = this.#sql
      .exec<{ meta: string; body: ArrayBuffer; read_at: number | null }>(
        "SELECT e.meta, e.body, u.read_at FROM entries e LEFT JOIN entry_use u ON u.key = e.key WHERE e.key = ?",
        key,
      )
      .toArray()[0];
    if (!row) return undefined;
    const meta = JSON.parse(row.meta) as EntryMeta;
    const bytes = lz4Decompress(new Uint8Array(row.body));
    this.#memory.set(key, { ...meta, readAt: this.#touch(key, row.read_at ?? 0) }, bytes);
    return unpackBodies(meta, bytes);
  }

  /**
   * A read of a stored entry: its read time moves on (with the next flush) if older than TOUCH_MS. Returns the read
   * time SQLite will hold.
   */
  #touch(key: string, readAt: number): number {
    const now = Date.now();
    if (now - readAt < TOUCH_MS) return readAt;
    this.#touches.set(key, now);
    return now;
  }

  /**
   * Keeps an answer under `key`, if it is at least as new as this tier's
   * floor and no purge mark covers it: a 200 in memory and SQLite. A 404 for
   * a page nobody wrote stays in memory only, briefly: reads of made-up
   * titles must not grow storage. (A latest answer's copy under its
   * revision's key goes to the tier that key lives in: src/tiers/chain.ts.)
   */
  keep(key: Pick<CacheKey, "key">, answer: Answer): void {
    if (answer.version < this.required(answer) || this.verdict(key.key, answer) === "purged") return;
    this.#put(key.key, answer);
  }

  #put(key: string, answer: Answer): void {
    if (answer.body.byteLength > LIMITS.tiers.maxEntryBytes) return;
    // A revision's br body goes with it: stored, evicted and purged together.
    const { meta, bytes: body } = packBodies(answer);
    if (answer.status === 404 && answer.negative) {
      if (this.notFoundSeconds > 0)
        this.#memory.set(key, { ...meta, expiresAt: Date.now() + this.notFoundSeconds * 1000 }, body);
      return;
    }
    if (answer.status !== 200) return;
    const metaText = JSON.stringify(meta);
    const packed = lz4Compress(body);
    const tags = tagsOf(answer);
    const size = entrySize(key, metaText, packed, tags);
    // An answer bigger than the whole budget passes through; an older one under its key must not stay behind.
    if (size > this.#budget) return this.#dropKeys([key]);
    const old = this.#sql.exec<{ size: number }>("SELECT size FROM entry_use WHERE key = ?", key).toArray()[0];
    this.#makeRoom(size - (old?.size ?? 0), key);
    const now = Date.now();
    this.#sql.exec(
      "INSERT OR REPLACE INTO entries (key, page, mutable, version, meta, body) VALUES (?, ?, ?, ?, ?, ?)",
      key,
      answer.page,
      answer.mutable ? 1 : 0,
      answer.version,
      metaText,
      packed,
    );
    this.#sql.exec("DELETE FROM entry_tags WHERE key = ?", key);
    for (const tag of tags) this.#sql.exec("INSERT OR IGNORE INTO entry_tags (tag, key) VALUES (?, ?)", tag, key);
    this.#sql.exec("INSERT OR REPLACE INTO entry_use (key, size, read_at) VALUES (?, ?, ?)", key, size, now);
    this.#touches.delete(key);
    this.#saveUsage(size - (old?.size ?? 0), old ? 0 : 1);
    this.#memory.set(key, { ...meta, readAt: now }, body);
  }

  /** Evicts the least recently read entries (never `keep`) until `growth` more bytes fit in the budget. */
  #makeRoom(growth: number, keep: string): void {
    if (this.#usage.bytes + growth <= this.#budget) return;
    // Reads held back count: a just-read entry must not go as if unread.
    this.#flush();
    let evicted = 0;
    while (this.#usage.bytes + growth > this.#budget) {
      const victims = this.#sql
        .exec<{ key: string }>("SELECT key FROM entry_use WHERE key <> ? ORDER BY read_at LIMIT 16", keep)
        .toArray()
        .map((r) => r.key);
      if (victims.length === 0) break;
      for (const victim of victims) {
        if (this.#usage.bytes + growth <= this.#budget) break;
        this.#dropKeys([victim]);
        evicted++;
      }
    }
    if (evicted > 0) this.count("evicted", evicted);
  }

  #saveUsage(bytes: number, entries: number): void {
    this.#usage = { bytes: this.#usage.bytes + bytes, entries: this.#usage.entries + entries };
    this.#sql.exec("UPDATE usage SET bytes = ?, entries = ? WHERE id = 1", this.#usage.bytes, this.#usage.entries);
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
      if (mark)
        this.#sql.exec(
          "INSERT OR REPLACE INTO marks (selector, hard, soft) VALUES (?, ?, ?)",
          selector,
          mark.hard,
          mark.soft,
        );
      if (soft) continue;
      if (selector === ALL) this.dropAll();
      else this.#dropKeys(this.#keysUnder(selector));
    }
    const folded = this.#marks.fold(LIMITS.purge.maxMarks);
    if (folded) {
      for (const selector of folded.removed) this.#sql.exec("DELETE FROM marks WHERE selector = ?", selector);
      this.#sql.exec(
        "INSERT OR REPLACE INTO marks (selector, hard, soft) VALUES (?, ?, ?)",
        ALL,
        folded.all.hard,
        folded.all.soft,
      );
    }
  }

  #keysUnder(selector: string): string[] {
    const colon = selector.indexOf(":");
    const [kind, value] = [selector.slice(0, colon), selector.slice(colon + 1)];
    const keys = (sql: string, ...args: string[]) =>
      this.#sql
        .exec<{ key: string }>(sql, ...args)
        .toArray()
        .map((r) => r.key);
    // A revision's key also covers its dcb variants (`?dcb=<hash>`; '>' follows '=').
    if (kind === "key")
      return keys(
        "SELECT key FROM entries WHERE key = ? OR (key >= ? AND key < ?)",
        value,
        `${value}?dcb=`,
        `${value}?dcb>`,
      );
    if (kind === "tag") return keys("SELECT key FROM entry_tags WHERE tag = ?", value);
    // At path segments: the prefix itself, below it (`/`), or with a query (`?`); '0' and '@' follow '/' and '?'.
    return keys(
      "SELECT key FROM entries WHERE key = ? OR (key >= ? AND key < ?) OR (key >= ? AND key < ?)",
      value,
      `${value}/`,
      `${value}0`,
      `${value}?`,
      `${value}@`,
    );
  }

  /** Drops entries from SQLite and memory alike, and takes what they cost off the usage. */
  #dropKeys(keys: string[]): void {
    let bytes = 0;
    let entries = 0;
    for (const key of keys) {
      const gone = this.#sql
        .exec<{ size: number }>("DELETE FROM entry_use WHERE key = ? RETURNING size", key)
        .toArray()[0];
      this.#sql.exec("DELETE FROM entries WHERE key = ?", key);
      this.#sql.exec("DELETE FROM entry_tags WHERE key = ?", key);
      this.#memory.delete(key);
      this.#touches.delete(key);
      if (gone) [bytes, entries] = [bytes + gone.size, entries + 1];
    }
    if (entries > 0) this.#saveUsage(-bytes, -entries);
  }

  raiseFloor(page: string, to: Partial<PageFloor>): void {
    const next = raised(this.floor(page), to);
    this.#sql.exec(
      "INSERT OR REPLACE INTO page_floors (page, mutable, all_keys) VALUES (?, ?, ?)",
      page,
      next.mutable,
      next.all,
    );
  }

  /**
   * Drops a page's entries older than `below`, the version a purge raised the floor to: its mutable
   * ones, or all of them. An entry at `below` or newer already reflects the purge's write (a reader
   * whose colo had the purge filled it from the origin before the purge reached this tier), so it
   * stays: dropping it would only make the next read render it again.
   */
  dropPage(page: string, mutableOnly: boolean, below: number): void {
    this.#dropKeys(
      this.#sql
        .exec<{
          key: string;
        }>(
          `SELECT key FROM entries WHERE page = ? AND version < ?${mutableOnly ? " AND mutable = 1" : ""}`,
          page,
          below,
        )
        .toArray()
        .map((r) => r.key),
    );
    // Brief 404s live in memory only.
    this.#memory.deleteWhere((_, m) => m.page === page && m.version < below && (!mutableOnly || m.mutable));
  }

  dropAll(): void {
    this.#sql.exec("DELETE FROM entries");
    this.#sql.exec("DELETE FROM entry_tags");
    this.#sql.exec("DELETE FROM entry_use");
    this.#saveUsage(-this.#usage.bytes, -this.#usage.entries);
    this.#memory.clear();
    this.#touches.clear();
  }

  /**
   * Lowers the budget (never above `LIMITS.tiers.storedBytes`) and evicts
   * down to it: a test fills a tier past its budget without writing a gigabyte.
   */
  lowerBudget(bytes: number): void {
    this.#budget = Math.max(0, Math.min(bytes, LIMITS.tiers.storedBytes));
    this.#makeRoom(0, "");
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
    this.#flush();
    const counters = Object.fromEntries(
      this.#sql
        .exec<{ name: string; n: number }>("SELECT name, n FROM counters")
        .toArray()
        .map((r) => [r.name, r.n]),
    );
    const applied = Object.fromEntries(
      this.#sql
        .exec<{ queue: string; seq: number; at: number }>("SELECT queue, seq, at FROM applied")
        .toArray()
        .map((r) => [r.queue, { seq: r.seq, at: r.at }]),
    );
    return {
      counters,
      entries: this.#usage.entries,
      storedBytes: this.#usage.bytes,
      budgetBytes: this.#budget,
      evictions: counters.evicted ?? 0,
      databaseBytes: this.#sql.databaseSize,
      memoryBytes: this.#memory.bytes,
      applied,
    };
  }
}
