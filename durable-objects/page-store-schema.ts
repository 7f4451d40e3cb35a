/**
 * SQLite schema of the PageStore Durable Object. Documented in
 * `page-store.md`; keep the two in step.
 */
/** Columns added after a store may have been created, with how to add them. */
export const PAGE_STORE_COLUMNS = [{ table: "revisions", column: "tags", add: "ALTER TABLE revisions ADD COLUMN tags TEXT NOT NULL DEFAULT ''" }] as const;

export const PAGE_STORE_SCHEMA = `
CREATE TABLE IF NOT EXISTS page (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  title TEXT NOT NULL,
  latest_seq INTEGER,
  content_count INTEGER NOT NULL DEFAULT 0,
  anchors_blob TEXT,
  layout TEXT NOT NULL,
  deleted_at INTEGER
);
CREATE TABLE IF NOT EXISTS revisions (
  seq INTEGER PRIMARY KEY,
  rev_id INTEGER NOT NULL UNIQUE,
  parent_id INTEGER,
  ts INTEGER NOT NULL,
  contributor TEXT NOT NULL,
  comment TEXT NOT NULL,
  model TEXT NOT NULL,
  format TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  sha1 TEXT NOT NULL,
  sha256 BLOB NOT NULL,
  u INTEGER NOT NULL,
  suppressed INTEGER NOT NULL DEFAULT 0,
  tags TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS revisions_by_time ON revisions (ts, seq);
CREATE INDEX IF NOT EXISTS revisions_by_content ON revisions (sha256);
CREATE TABLE IF NOT EXISTS groups (
  k INTEGER PRIMARY KEY,
  blob TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tails (
  u INTEGER PRIMARY KEY,
  blob TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS blobs (
  key TEXT PRIMARY KEY,
  bytes INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'live', 'dead')),
  since INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS blobs_by_state ON blobs (state, since);
CREATE TABLE IF NOT EXISTS counters (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  request TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL
);
`;
