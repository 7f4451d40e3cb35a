/**
 * SQLite schema of the PageStore Durable Object, format 4, and how a store
 * is opened. Documented in durable-objects/page-store.md (with its byte
 * budget); keep the two in step. The tables are numbered migrations
 * (src/storage/migrations.ts), idempotent because stores predate the
 * numbering. A store in format 1 (a `revisions` table; only ever written to
 * developers' local `.wrangler/state`, never deployed) is not supported: its
 * first start fails with an error naming the fix.
 *
 * Every table is a page of SQLite (4 KiB) before it holds a row, so there
 * are as few as the queries allow: one narrow indexed row per revision, and
 * one compressed metadata record per block of revisions, and one key-value
 * table for the small values read by exact key (the version, where each
 * group and tail lives). The records get a rowid table of their own: in a
 * WITHOUT ROWID table a value over about 1 KB spills into an overflow page
 * of its own, 4 KiB for a few hundred bytes.
 *
 * @example
 * const db = openPageDb(ctx.storage); // migrated, ready to read
 */
import { addColumn, migrate, type Migration } from "../storage/migrations.ts";
import { PageDb } from "./rows.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS page (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  title TEXT NOT NULL,
  latest_seq INTEGER,
  content_count INTEGER NOT NULL DEFAULT 0,
  anchors_blob TEXT,
  layout TEXT NOT NULL,
  deleted_at INTEGER,
  raw_bytes INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS revs (
  seq INTEGER PRIMARY KEY,
  rev_id INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  u INTEGER NOT NULL,
  h INTEGER NOT NULL,
  suppressed INTEGER NOT NULL DEFAULT 0,
  -- Effective time (src/page-store/effective-time.ts); indexed as revs_by_effective by migration 3.
  eff_ts INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS revs_by_id ON revs (rev_id);
CREATE INDEX IF NOT EXISTS revs_by_time ON revs (ts, seq);
CREATE INDEX IF NOT EXISTS revs_by_content ON revs (h);
CREATE TABLE IF NOT EXISTS meta (
  block INTEGER PRIMARY KEY,
  record BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS kv (
  k TEXT PRIMARY KEY,
  v
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blobs (
  key TEXT PRIMARY KEY,
  bytes INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'live', 'dead')),
  since INTEGER NOT NULL
) WITHOUT ROWID;
-- Revision ids of deleted incarnations of the page, with their content key: a URL
-- /page/{title}/{id} never serves other bytes than it once did (an id comes back only
-- with the same content, as MediaWiki's undelete restores it).
CREATE TABLE IF NOT EXISTS retired (
  rev_id INTEGER PRIMARY KEY,
  h INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY,
  request TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL
);
`;

/** What a store in format 1 is told: its tables are not read, and nothing converts them. */
export const FORMAT_1_UNSUPPORTED =
  "this PageStore is in format 1 (a `revisions` table), which this archive does not read: only local development state holds such stores; delete .wrangler/state and start again";

const MIGRATIONS: readonly Migration[] = [
  // 1: the tables. It runs on any store not yet numbered, so this is where format 1 is refused.
  (sql) => {
    if (sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'revisions'").toArray().length > 0)
      throw new Error(FORMAT_1_UNSUPPORTED);
    sql.exec(SCHEMA);
  },
  // 2: the page's raw bytes, added after stores had been created.
  (sql) => addColumn(sql, "page", "raw_bytes", "INTEGER NOT NULL DEFAULT 0"),
  // 3: effective times (src/page-store/effective-time.ts). Stores made before them (in local
  // development state) get the column, filled with the running maximum of `ts` in `seq` order;
  // every store gets the index `?at=` and the TimeGate walk. A new store fills nothing.
  (sql) => {
    addColumn(sql, "revs", "eff_ts", "INTEGER");
    sql.exec(
      `UPDATE revs SET eff_ts = running.eff_ts
       FROM (SELECT seq, max(ts) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) AS eff_ts FROM revs) AS running
       WHERE revs.seq = running.seq`,
    );
    sql.exec("CREATE INDEX IF NOT EXISTS revs_by_effective ON revs (eff_ts)");
    // The conversion this replaces recorded itself here.
    sql.exec("DELETE FROM kv WHERE k = 'format'");
  },
  // 4: what a revision hides besides its content (HIDDEN in src/page-store/rows.ts): its comment, its
  // contributor, and whether the archive ever held its text. No row has any yet.
  (sql) => addColumn(sql, "revs", "hidden", "INTEGER NOT NULL DEFAULT 0"),
];

/** A page's database, migrated, ready to read. */
export function openPageDb(storage: DurableObjectStorage): PageDb {
  migrate(storage, MIGRATIONS);
  return new PageDb(storage);
}
