/**
 * SQLite schema of a PageStore shard, format 5, and how a shard is opened.
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
 * costs its rows only. There are no more tables and indexes than in one
 * page's store of format 4 (a shard of one page costs what that did): the
 * records are keyed by a rowid made of pg and block, a deleted page's
 * retired ids are `kv` rows, and collection finds due blobs by reading the
 * `blobs` table from the alarm rather than through an index of its own.
 *
 * Stores of earlier formats are refused on their first start, their tables
 * left as they were, with an error naming the fix: format 1 (a `revisions`
 * table) and format 4 (one page per Durable Object, named by the page key:
 * a `page` table with one row). Neither can be converted in place: a format
 * 4 store is reached by a name no shard answers to any more, and only
 * local development state ever held format 1.
 *
 * A shard's reads create nothing: the schema is made on its first write
 * (LazySchema), so asking a shard that never stored a page for its figures
 * leaves no database behind.
 *
 * @example
 * const schema = openShardSchema(ctx.storage); // refuses an older format
 * if (schema.exists()) … ; schema.create(); // before a write
 */
import { LazySchema, type Migration } from "../storage/migrations.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS pages (
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
CREATE TABLE IF NOT EXISTS revs (
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
CREATE UNIQUE INDEX IF NOT EXISTS revs_by_id ON revs (pg, rev_id);
CREATE INDEX IF NOT EXISTS revs_by_time ON revs (pg, ts, seq);
CREATE INDEX IF NOT EXISTS revs_by_content ON revs (pg, h);
CREATE INDEX IF NOT EXISTS revs_by_effective ON revs (pg, eff_ts, seq);
-- id = pg * 2^24 + block (metaId in src/page-store/rows.ts): a page's records are one rowid range, with no index.
CREATE TABLE IF NOT EXISTS meta (
  id INTEGER PRIMARY KEY,
  record BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS kv (
  pg INTEGER NOT NULL,
  k TEXT NOT NULL,
  v,
  PRIMARY KEY (pg, k)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blobs (
  pg INTEGER NOT NULL,
  key TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'live', 'dead')),
  since INTEGER NOT NULL,
  PRIMARY KEY (pg, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY,
  pg INTEGER NOT NULL,
  request TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL
);
`;

/** What a store in format 1 is told: its tables are not read, and nothing converts them. */
export const FORMAT_1_UNSUPPORTED =
  "this PageStore is in format 1 (a `revisions` table), which this archive does not read: only local development state holds such stores; delete .wrangler/state and start again";

/** What a store in format 4 (one page per Durable Object) is told. */
export const FORMAT_4_UNSUPPORTED =
  "this PageStore is in format 4 (or 2 or 3, its older forms: one page per Durable Object, named by the page key), which this archive no longer reads: pages now live many to a shard (format 5). Its pages are not converted. To keep them, export them with the palimpsest release that wrote them (palimpsest export FILE --token <backup token>), then delete .wrangler/state (or the --persist-to directory), start again and palimpsest import FILE; otherwise just delete .wrangler/state";

const MIGRATIONS: readonly Migration[] = [
  // 1: format 5's tables.
  SCHEMA,
];

/** Tables whose presence means the shard was written (see LazySchema). */
const TABLES = ["pages"];

/** Why a store of an earlier format (see above) is refused, or null for a shard (or an empty database). */
export function olderFormatOf(sql: SqlStorage): string | null {
  const has = (name: string) =>
    sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;
  if (has("revisions")) return FORMAT_1_UNSUPPORTED;
  if (has("page")) return FORMAT_4_UNSUPPORTED;
  return null;
}

/** A shard's schema: an older format refused now, before anything is created; the schema made on the first write. */
export function openShardSchema(storage: DurableObjectStorage): LazySchema {
  const refusal = olderFormatOf(storage.sql);
  if (refusal) throw new Error(refusal);
  return new LazySchema(storage, MIGRATIONS, TABLES);
}
