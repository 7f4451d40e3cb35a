/**
 * SQLite schema of the PageStore Durable Object, format 3, and how a store
 * is opened. Documented in durable-objects/page-store.md (with its byte
 * budget); keep the two in step. The tables are numbered migrations
 * (src/storage/migrations.ts), idempotent because stores predate the
 * numbering. Stores written in format 1 are then converted on first access
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
 *
 * @example
 * const db = openPageDb(ctx.storage); // migrated and converted, ready to read
 */
import { addColumn, migrate, type Migration } from "../storage/migrations.ts";
import { migrateFromV1 } from "./migrate-v1.ts";
import { migrateFromV2 } from "./migrate-v2.ts";
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

const MIGRATIONS: readonly Migration[] = [
  SCHEMA,
  // 2: the page's raw bytes, added after stores had been created.
  (sql) => addColumn(sql, "page", "raw_bytes", "INTEGER NOT NULL DEFAULT 0"),
];

/** A page's database, migrated, and converted once from format 1 and then 2 before anything reads it. */
export function openPageDb(storage: DurableObjectStorage): PageDb {
  migrate(storage, MIGRATIONS);
  const db = new PageDb(storage);
  migrateFromV1(db);
  migrateFromV2(db);
  return db;
}
