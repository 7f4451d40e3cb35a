/**
 * Stores of earlier formats are not converted: their first start fails with
 * an error that says so and names the fix, and leaves their tables as they
 * were. Format 1 (a wide `revisions` row per revision, with `groups`,
 * `tails` and `counters` tables, only ever in local development state), and
 * formats 2 to 4 (one page per Durable Object, named by the page key: a
 * `page` table with one row), which a shard cannot take over: their blobs
 * and their names belong to one page each.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PageStore } from "../../../durable-objects/page-store.ts";
import { FORMAT_1_UNSUPPORTED, FORMAT_4_UNSUPPORTED } from "../../../src/page-store/schema.ts";
import { pageStoreOf } from "../../../src/bindings.ts";
import { listPage } from "../../../src/page/directory.ts";
import { appendOk, latestBody, linearHistory } from "../support/archive.ts";
import { shardStub } from "../support/page-shards.ts";

/** Format 1's own tables, as its PageStore created them. */
const FORMAT_1 = [
  "CREATE TABLE page (id INTEGER PRIMARY KEY CHECK (id = 1), title TEXT NOT NULL, latest_seq INTEGER, content_count INTEGER NOT NULL DEFAULT 0, anchors_blob TEXT, layout TEXT NOT NULL, deleted_at INTEGER)",
  `CREATE TABLE revisions (seq INTEGER PRIMARY KEY, rev_id INTEGER NOT NULL UNIQUE, parent_id INTEGER, ts INTEGER NOT NULL, contributor TEXT NOT NULL, comment TEXT NOT NULL,
     model TEXT NOT NULL, format TEXT NOT NULL, bytes INTEGER NOT NULL, sha1 TEXT NOT NULL, sha256 BLOB NOT NULL, u INTEGER NOT NULL, suppressed INTEGER NOT NULL DEFAULT 0, tags TEXT NOT NULL DEFAULT '')`,
  "CREATE TABLE groups (k INTEGER PRIMARY KEY, blob TEXT NOT NULL)",
  "CREATE TABLE tails (u INTEGER PRIMARY KEY, blob TEXT NOT NULL)",
  "CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
  "CREATE TABLE blobs (key TEXT PRIMARY KEY, bytes INTEGER NOT NULL, state TEXT NOT NULL, since INTEGER NOT NULL)",
  "CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, request TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL)",
];

/** Format 4's tables, as the PageStore of one page per Durable Object made them (its migrations 1 to 4). */
const FORMAT_4 = `
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

CREATE INDEX revs_by_effective ON revs (eff_ts);
CREATE TABLE schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
INSERT INTO schema_version (id, version) VALUES (1, 4);
`;

const tables = (sql: SqlStorage) =>
  sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%' AND name != 'sqlite_sequence'",
    )
    .toArray()
    .map((t) => t.name)
    .sort();

/** Builds an old store in a Durable Object of its own, then starts a PageStore on it, as a restart would. */
function startOn(name: string, build: (sql: SqlStorage) => void) {
  return runInDurableObject(env.PAGE_STORE.getByName(name), (_: PageStore, state) => {
    const sql = state.storage.sql;
    for (const t of tables(sql)) sql.exec(`DROP TABLE ${t}`);
    build(sql);
    const before = tables(sql);
    let error: unknown = null;
    try {
      new PageStore(state, env);
    } catch (err) {
      error = err;
    }
    return {
      error: error instanceof Error ? error.message : String(error),
      before,
      after: tables(sql),
      version: sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'schema_version'").toArray().length
        ? (sql.exec<{ version: number }>("SELECT version FROM schema_version").toArray()[0]?.version ?? null)
        : null,
    };
  });
}

describe("a store written in format 1", () => {
  it("is refused on its first start with an error naming the fix (delete .wrangler/state), its tables left as they were", async () => {
    const started = await startOn("Format_1_store", (sql) => {
      for (const ddl of FORMAT_1) sql.exec(ddl);
      sql.exec(
        "INSERT INTO page (id, title, latest_seq, content_count, layout) VALUES (1, 'Format 1 store', 1, 1, '{}')",
      );
      sql.exec(
        "INSERT INTO revisions (seq, rev_id, ts, contributor, comment, model, format, bytes, sha1, sha256, u) VALUES (1, 1, 0, 'Ann', '', 'wikitext', 'text/x-wiki', 3, 'x', x'00', 1)",
      );
    });
    expect(started.error).toBe(FORMAT_1_UNSUPPORTED);
    expect(started.error).toContain("format 1");
    expect(started.error).toContain("delete .wrangler/state");
    // Nothing converted, nothing created.
    expect(started.after).toEqual(started.before);
    expect(started.version).toBeNull();
  });
});

describe("a store written in format 4 (one page per Durable Object)", () => {
  it("is refused on its first start with an error naming the fix (export with the release that wrote it, delete .wrangler/state, import), its tables and rows left as they were", async () => {
    const started = await startOn("Format_4_store", (sql) => {
      sql.exec(FORMAT_4);
      sql.exec(
        "INSERT INTO page (id, title, latest_seq, content_count, layout) VALUES (1, 'Format 4 store', 1, 1, '{}')",
      );
      sql.exec("INSERT INTO revs (seq, rev_id, ts, u, h, eff_ts) VALUES (1, 1, 0, 0, 0, 0)");
    });
    expect(started.error).toBe(FORMAT_4_UNSUPPORTED);
    expect(started.error).toContain("format 4");
    expect(started.error).toContain("palimpsest export");
    expect(started.error).toContain("delete .wrangler/state");
    expect(started.error).toContain("palimpsest import");
    expect(started.after).toEqual(started.before);
    expect(started.after).toContain("page");
    expect(started.version).toBe(4);
  });

  it("is refused as well when written before effective times (format 2: no eff_ts, at migration 2)", async () => {
    const started = await startOn("Format_2_store", (sql) => {
      sql.exec(
        FORMAT_4.replace(
          "INSERT INTO schema_version (id, version) VALUES (1, 4)",
          "INSERT INTO schema_version (id, version) VALUES (1, 2)",
        ),
      );
      sql.exec("DROP INDEX revs_by_effective");
    });
    expect(started.error).toBe(FORMAT_4_UNSUPPORTED);
    expect(started.after).toEqual(started.before);
    expect(started.version).toBe(2);
  });
});

describe("local state written in format 4, met by today's archive", () => {
  it("a page its directory lists but no shard holds is read from its old store's refusal, naming the fix", async () => {
    const key = "Old_state_page";
    // What an old `palimpsest dev` left: the page listed, its store named by its key, in format 4.
    await listPage(env, key);
    await runInDurableObject(env.PAGE_STORE.getByName(key), (_: PageStore, state) => {
      state.storage.sql.exec(FORMAT_4);
      state.storage.sql.exec(
        "INSERT INTO page (id, title, latest_seq, content_count, layout) VALUES (1, 'Old state page', 1, 1, '{}')",
      );
    });
    await expect(pageStoreOf(env, key).locate({ kind: "latest" })).rejects.toThrow(FORMAT_4_UNSUPPORTED);
    await expect(pageStoreOf(env, key).history({}, 10)).rejects.toThrow("delete .wrangler/state");
    // Writing the page again (a re-import) puts it in its shard, and it reads from there.
    await appendOk(key, linearHistory(1));
    expect(await latestBody(key)).toBe(linearHistory(1)[0]!.text);
  });
});

describe("a shard of today (format 5)", () => {
  it("starts at the latest migration and opens again without running one", async () => {
    const key = "Format_5_store";
    await appendOk(key, linearHistory(2));
    const opened = await runInDurableObject(shardStub(key), (_: PageStore, state) => {
      const sql = state.storage.sql;
      const version = () => sql.exec<{ version: number }>("SELECT version FROM schema_version").one().version;
      const first = version();
      new PageStore(state, env);
      return {
        first,
        again: version(),
        index: sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'revs_by_effective'").toArray()
          .length,
      };
    });
    expect(opened).toEqual({ first: 1, again: 1, index: 1 });
  });
});
