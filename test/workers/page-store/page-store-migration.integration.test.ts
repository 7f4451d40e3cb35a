/**
 * A store in format 1 (a wide `revisions` row per revision, with `groups`,
 * `tails` and `counters` tables: what the PageStore wrote before format 2,
 * only ever into local development state) is not converted: its first start
 * fails with an error that says so and names the fix, and leaves its tables
 * as they were. (Format 2 to 3 is migration 3, tested with the children dated
 * before their parents in child-before-parent.integration.test.ts.)
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PageStore } from "../../../durable-objects/page-store.ts";
import { FORMAT_1_UNSUPPORTED } from "../../../src/page-store/schema.ts";
import { appendOk, linearHistory } from "../support/archive.ts";

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

describe("a store written in format 1", () => {
  it("is refused on its first start with an error naming the fix (delete .wrangler/state), its tables left as they were", async () => {
    const key = "Format_1_store";
    const stub = env.PAGE_STORE.getByName(key);
    const started = await runInDurableObject(stub, (_: PageStore, state) => {
      const sql = state.storage.sql;
      const tables = () =>
        sql
          .exec<{ name: string }>(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%' AND name != 'sqlite_sequence'",
          )
          .toArray()
          .map((t) => t.name)
          .sort();
      // In place of the fresh store's tables: format 1 had no schema_version either.
      for (const t of tables()) sql.exec(`DROP TABLE ${t}`);
      for (const ddl of FORMAT_1) sql.exec(ddl);
      sql.exec(
        "INSERT INTO page (id, title, latest_seq, content_count, layout) VALUES (1, 'Format 1 store', 1, 1, '{}')",
      );
      sql.exec(
        "INSERT INTO revisions (seq, rev_id, ts, contributor, comment, model, format, bytes, sha1, sha256, u) VALUES (1, 1, 0, 'Ann', '', 'wikitext', 'text/x-wiki', 3, 'x', x'00', 1)",
      );
      const before = tables();
      // What a restart does: a new instance over the same storage.
      let error: unknown = null;
      try {
        new PageStore(state, env);
      } catch (err) {
        error = err;
      }
      return {
        error: error instanceof Error ? error.message : String(error),
        before,
        after: tables(),
        version: sql.exec<{ version: number }>("SELECT version FROM schema_version").toArray()[0]?.version ?? null,
        rows: sql.exec("SELECT 1 FROM revisions").toArray().length,
      };
    });
    expect(started.error).toBe(FORMAT_1_UNSUPPORTED);
    expect(started.error).toContain("format 1");
    expect(started.error).toContain("delete .wrangler/state");
    // Nothing converted, nothing created but the (unnumbered) version row.
    expect(started.after).toEqual([...started.before, "schema_version"].sort());
    expect(started.version).toBe(0);
    expect(started.rows).toBe(1);
  });

  it("is told apart from a store of today, which starts at the latest migration and opens again without running one", async () => {
    const key = "Format_3_store";
    await appendOk(key, linearHistory(2));
    const opened = await runInDurableObject(env.PAGE_STORE.getByName(key), (_: PageStore, state) => {
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
    expect(opened).toEqual({ first: 4, again: 4, index: 1 });
  });
});
