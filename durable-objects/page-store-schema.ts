/**
 * SQLite schema of the PageStore Durable Object, format 3. Documented in
 * `page-store.md` (with its byte budget); keep the two in step. Stores
 * written in format 1 are converted on first access
 * (src/page-store/migrate-v1.ts), then those in format 2
 * (src/page-store/migrate-v2.ts: effective times and their index).
 *
 * Every table is a page of SQLite (4 KiB) before it holds a row, so there
 * are as few as the queries allow: one narrow indexed row per revision, and
 * one compressed metadata record per block of revisions, and one key-value
 * table for the small values read by exact key (the version, where each
 * group and tail lives). The records get a rowid table of their own: in a
 * WITHOUT ROWID table a value over about 1 KB spills into an overflow page
 * of its own, 4 KiB for a few hundred bytes.
 */
/** Columns added after a store may have been created, with how to add them. */
export const PAGE_STORE_COLUMNS = [{ table: "page", column: "raw_bytes", add: "ALTER TABLE page ADD COLUMN raw_bytes INTEGER NOT NULL DEFAULT 0" }] as const;

export const PAGE_STORE_SCHEMA = `
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
  -- Effective time (src/page-store/effective-time.ts); indexed as revs_by_effective by src/page-store/migrate-v2.ts.
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
