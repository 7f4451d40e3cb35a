/**
 * A PageDirectory shard's storage (the Durable Object is a shell over this):
 * which page keys exist, and each page's figures as its PageStore last
 * reported them. A shard that was never written to answers from an empty
 * database and creates no table: anyone can send reads, and reads must not
 * grow storage.
 *
 *   pages    key (PRIMARY KEY), WITHOUT ROWID
 *   figures  key, title, version, deleted (0 no, 1 for good, 2 restorable), revisions, raw_bytes, blob_bytes,
 *            metadata_bytes, reported_at; indexed by reported_at (figures_recent),
 *            for the front page's recently changed pages without a scan
 *
 * @example
 * const store = new DirectoryStore(ctx.storage);
 * store.add("BIP_0340");
 * store.has("BIP_0340"); // true
 */
import { LazySqlStore, type Migration } from "../storage/migrations.ts";
import {
  emptyTotals,
  type DirectoryOverview,
  type DirectorySurvey,
  type PageFigures,
  type RecentPage,
  type StorageTotals,
  type TitleMatch,
} from "./directory.ts";

/** Numbered (src/storage/migrations.ts): the first is the whole schema; a change appends the next. */
const MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE pages (key TEXT PRIMARY KEY) WITHOUT ROWID;
   CREATE TABLE figures (
     key TEXT PRIMARY KEY,
     title TEXT NOT NULL,
     version INTEGER NOT NULL,
     deleted INTEGER NOT NULL,
     revisions INTEGER NOT NULL,
     raw_bytes INTEGER NOT NULL,
     blob_bytes INTEGER NOT NULL,
     metadata_bytes INTEGER NOT NULL,
     reported_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX figures_recent ON figures (reported_at);`,
];

/**
 * Above every title that starts with a prefix: SQLite compares TEXT as UTF-8 bytes, and U+10FFFF is the highest code
 * point.
 */
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
    deleted: row.deleted !== 0,
    ...(row.deleted === 2 ? { restorable: true } : {}),
    revisions: row.revisions ?? 0,
    rawBytes: row.raw_bytes ?? 0,
    blobBytes: row.blob_bytes ?? 0,
    metadataBytes: row.metadata_bytes ?? 0,
    reportedAt: row.reported_at ?? 0,
  };
}

export class DirectoryStore extends LazySqlStore {
  constructor(storage: DurableObjectStorage) {
    super(storage, MIGRATIONS, ["pages"]);
  }

  has(key: string): boolean {
    if (!this.schema.exists()) return false;
    return this.sql.exec("SELECT 1 FROM pages WHERE key = ?", key).toArray().length > 0;
  }

  add(key: string): void {
    if (!this.schema.exists()) this.schema.create();
    this.sql.exec("INSERT OR IGNORE INTO pages (key) VALUES (?)", key);
  }

  /** Records a page's figures; reports can arrive out of order, so an older version never replaces a newer one. */
  report(key: string, f: PageFigures): void {
    this.add(key);
    this.sql.exec(
      `INSERT INTO figures (key, title, version, deleted, revisions, raw_bytes, blob_bytes, metadata_bytes, reported_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET title = excluded.title, version = excluded.version, deleted = excluded.deleted,
         revisions = excluded.revisions, raw_bytes = excluded.raw_bytes, blob_bytes = excluded.blob_bytes,
         metadata_bytes = excluded.metadata_bytes, reported_at = excluded.reported_at
       WHERE excluded.version >= figures.version`,
      key,
      f.title,
      f.version,
      f.deleted ? (f.restorable ? 2 : 1) : 0,
      f.revisions,
      f.rawBytes,
      f.blobBytes,
      f.metadataBytes,
      f.reportedAt,
    );
  }

  /** This shard's totals over every page it lists (the sums cover the pages that reported figures). */
  totals(): StorageTotals {
    const totals = emptyTotals();
    if (!this.schema.exists()) return totals;
    const sums = this.sql
      .exec<Record<string, number | null>>(
        `SELECT count(*) AS pages, count(f.key) AS reported, sum(f.deleted != 0) AS deleted, sum(f.revisions) AS revisions,
           sum(f.raw_bytes) AS rawBytes, sum(f.blob_bytes) AS blobBytes, sum(f.metadata_bytes) AS metadataBytes
         FROM pages p LEFT JOIN figures f ON f.key = p.key`,
      )
      .one();
    for (const name of Object.keys(totals) as Array<keyof StorageTotals>) totals[name] = sums[name] ?? 0;
    return totals;
  }

  /** This shard's totals, and its pages after `after` in key order with their figures (null if never reported). */
  survey(after: string, limit: number): DirectorySurvey {
    const totals = this.totals();
    if (!this.schema.exists()) return { totals, pages: [] };
    const rows = this.sql
      .exec<FigureRow>(
        `SELECT p.key AS key, f.title, f.version, f.deleted, f.revisions, f.raw_bytes, f.blob_bytes, f.metadata_bytes, f.reported_at
         FROM pages p LEFT JOIN figures f ON f.key = p.key WHERE p.key > ? ORDER BY p.key LIMIT ?`,
        after,
        limit,
      )
      .toArray();
    return { totals, pages: rows.map((row) => ({ key: row.key, figures: figuresOf(row) })) };
  }

  /**
   * Titles starting with `prefix` (keys, so underscores), after `after`, in key order: a range on the
   * primary key, never a scan. Deleted pages are left out; `withDeleted` keeps the restorable ones.
   * Left out, they are stepped over: a shard's read grows with the deleted pages in the range.
   */
  search(prefix: string, after: string, limit: number, withDeleted = false): TitleMatch[] {
    if (!this.schema.exists()) return [];
    return this.sql
      .exec<{ key: string; revisions: number | null; deleted: number | null; reported_at: number | null }>(
        `SELECT p.key AS key, f.revisions, f.deleted, f.reported_at FROM pages p LEFT JOIN figures f ON f.key = p.key
         WHERE p.key >= ? AND p.key > ? AND p.key < ? AND (f.deleted IS NULL OR f.deleted = 0 OR f.deleted = ?)
         ORDER BY p.key LIMIT ?`,
        prefix,
        after,
        prefix + PREFIX_END,
        withDeleted ? 2 : 0,
        limit,
      )
      .toArray()
      .map((r) => ({
        key: r.key,
        revisions: r.revisions,
        deleted: r.deleted !== null && r.deleted !== 0,
        changedAt: r.reported_at,
      }));
  }

  /** The front page's share of this shard: its totals and its most recently changed live pages. */
  overview(recent: number): DirectoryOverview {
    const totals = this.totals();
    if (!this.schema.exists()) return { totals, recent: [] };
    const rows = this.sql
      .exec<{ key: string; title: string; revisions: number; reported_at: number }>(
        "SELECT key, title, revisions, reported_at FROM figures WHERE deleted = 0 ORDER BY reported_at DESC LIMIT ?",
        recent,
      )
      .toArray();
    return {
      totals,
      recent: rows.map((r): RecentPage => ({
        key: r.key,
        title: r.title,
        revisions: r.revisions,
        changedAt: r.reported_at,
      })),
    };
  }
}
