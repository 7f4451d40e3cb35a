/**
 * SQLite schema of a PageStore shard, and how a shard is opened.
 * A shard holds many pages (src/bindings.ts `shardOf`): every per-page
 * table is led by `pg`, the page's small integer in this shard (`pages`),
 * so a page's rows sit together and every query names its page. Documented
 * in durable-objects/page-store.md (with its byte budget); keep the two in
 * step.
 *
 * Why shards: every table and index is a page of SQLite (4 KiB) before it
 * holds a row, so a Durable Object per page cost a wiki's typical page (a
 * few revisions, a few KB of blobs) 61,440 bytes of empty SQLite. In a
 * shard the fixed pages are paid once for all its pages, and one more page
 * costs its rows only. There are no more tables and indexes than a store of
 * one page needed (a shard of one page costs what an object per page did):
 * the records are keyed by a rowid made of pg and block, a deleted page's
 * retired ids are `kv` rows, and collection finds due blobs by reading the
 * `blobs` table from the alarm rather than through an index of its own.
 *
 * A shard's reads create nothing: the schema is made on its first write
 * (LazySchema), so asking a shard that never stored a page for its figures
 * leaves no database behind.
 *
 * @example
 * const schema = openShardSchema(ctx.storage);
 * if (schema.exists()) … ; schema.create(); // before a write
 */
import { LazySchema, type Migration } from "../storage/migrations.ts";

const SCHEMA = `
CREATE TABLE pages (
  pg INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  latest_seq INTEGER,
  content_count INTEGER NOT NULL DEFAULT 0,
  anchors_blob TEXT,
  -- NULL until the page's first commit lands (its pg is taken before, for its blobs' key space).
  layout TEXT,
  deleted_at INTEGER,
  raw_bytes INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE revs (
  pg INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  rev_id INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  u INTEGER NOT NULL,
  h INTEGER NOT NULL,
  suppressed INTEGER NOT NULL DEFAULT 0,
  -- Effective time (src/page-store/effective-time.ts).
  eff_ts INTEGER,
  hidden INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (pg, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX revs_by_id ON revs (pg, rev_id);
CREATE INDEX revs_by_time ON revs (pg, ts, seq);
CREATE INDEX revs_by_content ON revs (pg, h);
CREATE INDEX revs_by_effective ON revs (pg, eff_ts, seq);
-- id = pg * 2^24 + block (metaId in src/page-store/rows.ts): a page's records are one rowid range, with no index.
CREATE TABLE meta (
  id INTEGER PRIMARY KEY,
  record BLOB NOT NULL
);
CREATE TABLE kv (
  pg INTEGER NOT NULL,
  k TEXT NOT NULL,
  v,
  PRIMARY KEY (pg, k)
) WITHOUT ROWID;
CREATE TABLE blobs (
  pg INTEGER NOT NULL,
  key TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'live', 'dead')),
  since INTEGER NOT NULL,
  PRIMARY KEY (pg, key)
) WITHOUT ROWID;
CREATE TABLE outbox (
  id INTEGER PRIMARY KEY,
  pg INTEGER NOT NULL,
  request TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL
);
`;

/** Numbered (src/storage/migrations.ts): the first is the whole schema; a change appends the next. */
const MIGRATIONS: readonly Migration[] = [SCHEMA];

/** Tables whose presence means the shard was written (see LazySchema). */
const TABLES = ["pages"];

/** A shard's schema, made on its first write. */
export function openShardSchema(storage: DurableObjectStorage): LazySchema {
  return new LazySchema(storage, MIGRATIONS, TABLES);
}
