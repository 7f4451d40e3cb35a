/**
 * PageDirectory: which page titles exist, sharded by title, and what each
 * page stores. The origin asks it before touching a PageStore, so a read of
 * a title nobody wrote answers 404 without creating that page's Durable
 * Object and its database: anyone can send reads, and reads must not grow
 * storage. A shard that was never written to answers from an empty database
 * and creates no table.
 *
 * Each PageStore reports its figures (revisions, raw and stored bytes) here
 * after a change, so the storage view sums 32 shards instead of waking
 * every page. The public front page reads the same figures: totals, the
 * recently changed pages (an index on the report time) and title prefix
 * search (a range on the primary key).
 *
 * @example
 * await directoryOf(env, "BIP_0340").add("BIP_0340");
 * await directoryOf(env, "BIP_0340").has("BIP_0340"); // true
 */
import { DurableObject } from "cloudflare:workers";
import type { DirectoryOverview, DirectorySurvey, PageFigures, RecentPage, StorageTotals, TitleMatch } from "../src/page/directory.ts";

const PAGES = "CREATE TABLE IF NOT EXISTS pages (key TEXT PRIMARY KEY) WITHOUT ROWID";
const FIGURES = `CREATE TABLE IF NOT EXISTS figures (
  key TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  version INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  revisions INTEGER NOT NULL,
  raw_bytes INTEGER NOT NULL,
  blob_bytes INTEGER NOT NULL,
  metadata_bytes INTEGER NOT NULL,
  reported_at INTEGER NOT NULL
) WITHOUT ROWID`;
/** Recently changed pages, newest first, without a scan (the front page's list). */
const FIGURES_RECENT = "CREATE INDEX IF NOT EXISTS figures_recent ON figures (reported_at)";
/** Above every title that starts with a prefix: SQLite compares TEXT as UTF-8 bytes, and U+10FFFF is the highest code point. */
const PREFIX_END = "\u{10FFFF}";

interface FigureRow {
  key: string;
  title: string | null;
  version: number | null;
  deleted: number | null;
  revisions: number | null;
  raw_bytes: number | null;
  blob_bytes: number | null;
  metadata_bytes: number | null;
  reported_at: number | null;
  [column: string]: SqlStorageValue;
}

function figuresOf(row: FigureRow): PageFigures | null {
  if (row.version === null) return null;
  return {
    title: row.title ?? row.key,
    version: row.version,
    deleted: row.deleted === 1,
    revisions: row.revisions ?? 0,
    rawBytes: row.raw_bytes ?? 0,
    blobBytes: row.blob_bytes ?? 0,
    metadataBytes: row.metadata_bytes ?? 0,
    reportedAt: row.reported_at ?? 0,
  };
}

export class PageDirectory extends DurableObject<Env> {
  readonly #ready = new Set<string>();

  /** Whether a table exists; asked of SQLite until it does, never created by a read. */
  #exists(table: "pages" | "figures"): boolean {
    if (!this.#ready.has(table) && this.ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = ?", table).toArray().length > 0) this.#ready.add(table);
    return this.#ready.has(table);
  }

  #create(table: "pages" | "figures"): void {
    if (this.#exists(table)) return;
    this.ctx.storage.sql.exec(table === "pages" ? PAGES : FIGURES);
    this.#ready.add(table);
  }

  /** The recency index, added to shards whose figures table predates it; derived data, so a read may add it. */
  #indexRecent(): void {
    if (this.#ready.has("figures_recent")) return;
    this.ctx.storage.sql.exec(FIGURES_RECENT);
    this.#ready.add("figures_recent");
  }

  has(key: string): boolean {
    if (!this.#exists("pages")) return false;
    return this.ctx.storage.sql.exec("SELECT 1 FROM pages WHERE key = ?", key).toArray().length > 0;
  }

  add(key: string): void {
    this.#create("pages");
    this.ctx.storage.sql.exec("INSERT OR IGNORE INTO pages (key) VALUES (?)", key);
  }

  /** Records a page's figures; reports can arrive out of order, so an older version never replaces a newer one. */
  report(key: string, f: PageFigures): void {
    this.add(key);
    this.#create("figures");
    this.#indexRecent();
    this.ctx.storage.sql.exec(
      `INSERT INTO figures (key, title, version, deleted, revisions, raw_bytes, blob_bytes, metadata_bytes, reported_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET title = excluded.title, version = excluded.version, deleted = excluded.deleted,
         revisions = excluded.revisions, raw_bytes = excluded.raw_bytes, blob_bytes = excluded.blob_bytes,
         metadata_bytes = excluded.metadata_bytes, reported_at = excluded.reported_at
       WHERE excluded.version >= figures.version`,
      key, f.title, f.version, f.deleted ? 1 : 0, f.revisions, f.rawBytes, f.blobBytes, f.metadataBytes, f.reportedAt,
    );
  }

  /** This shard's totals over every page it lists (the sums cover the pages that reported figures). */
  #totals(): StorageTotals {
    const totals: StorageTotals = { pages: 0, reported: 0, deleted: 0, revisions: 0, rawBytes: 0, blobBytes: 0, metadataBytes: 0 };
    if (!this.#exists("pages")) return totals;
    const sql = this.ctx.storage.sql;
    if (!this.#exists("figures")) {
      totals.pages = sql.exec<{ n: number }>("SELECT count(*) AS n FROM pages").one().n;
      return totals;
    }
    const sums = sql
      .exec<Record<string, number | null>>(
        `SELECT count(*) AS pages, count(f.key) AS reported, sum(f.deleted) AS deleted, sum(f.revisions) AS revisions,
           sum(f.raw_bytes) AS rawBytes, sum(f.blob_bytes) AS blobBytes, sum(f.metadata_bytes) AS metadataBytes
         FROM pages p LEFT JOIN figures f ON f.key = p.key`,
      )
      .one();
    for (const name of Object.keys(totals) as Array<keyof StorageTotals>) totals[name] = sums[name] ?? 0;
    return totals;
  }

  /** This shard's totals, and its pages after `after` in key order with their figures (null if never reported). */
  survey(after: string, limit: number): DirectorySurvey {
    const totals = this.#totals();
    if (!this.#exists("pages")) return { totals, pages: [] };
    const sql = this.ctx.storage.sql;
    if (!this.#exists("figures")) {
      const keys = sql.exec<{ key: string }>("SELECT key FROM pages WHERE key > ? ORDER BY key LIMIT ?", after, limit).toArray();
      return { totals, pages: keys.map(({ key }) => ({ key, figures: null })) };
    }
    const rows = sql.exec<FigureRow>(`SELECT p.key AS key, f.title, f.version, f.deleted, f.revisions, f.raw_bytes, f.blob_bytes, f.metadata_bytes, f.reported_at
         FROM pages p LEFT JOIN figures f ON f.key = p.key WHERE p.key > ? ORDER BY p.key LIMIT ?`, after, limit).toArray();
    return { totals, pages: rows.map((row) => ({ key: row.key, figures: figuresOf(row) })) };
  }

  /**
   * Titles starting with `prefix` (keys, so underscores), after `after`, in
   * key order: a range on the primary key, never a scan.
   */
  search(prefix: string, after: string, limit: number): TitleMatch[] {
    if (!this.#exists("pages")) return [];
    const sql = this.ctx.storage.sql;
    const range = [prefix, after, prefix + PREFIX_END, limit] as const;
    if (!this.#exists("figures")) {
      return sql
        .exec<{ key: string }>("SELECT key FROM pages WHERE key >= ? AND key > ? AND key < ? ORDER BY key LIMIT ?", ...range)
        .toArray()
        .map(({ key }) => ({ key, revisions: null, deleted: false, changedAt: null }));
    }
    return sql
      .exec<{ key: string; revisions: number | null; deleted: number | null; reported_at: number | null }>(
        `SELECT p.key AS key, f.revisions, f.deleted, f.reported_at FROM pages p LEFT JOIN figures f ON f.key = p.key
         WHERE p.key >= ? AND p.key > ? AND p.key < ? ORDER BY p.key LIMIT ?`,
        ...range,
      )
      .toArray()
      .map((r) => ({ key: r.key, revisions: r.revisions, deleted: r.deleted === 1, changedAt: r.reported_at }));
  }

  /** The front page's share of this shard: its totals and its most recently changed live pages. */
  overview(recent: number): DirectoryOverview {
    const totals = this.#totals();
    if (!this.#exists("figures")) return { totals, recent: [] };
    this.#indexRecent();
    const rows = this.ctx.storage.sql
      .exec<{ key: string; title: string; revisions: number; reported_at: number }>(
        "SELECT key, title, revisions, reported_at FROM figures WHERE deleted = 0 ORDER BY reported_at DESC LIMIT ?",
        recent,
      )
      .toArray();
    return { totals, recent: rows.map((r): RecentPage => ({ key: r.key, title: r.title, revisions: r.revisions, changedAt: r.reported_at })) };
  }
}
