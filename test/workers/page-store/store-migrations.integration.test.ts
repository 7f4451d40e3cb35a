/**
 * src/storage/migrations.ts over databases written before the stores
 * numbered their migrations: each lands at its version with the schema the
 * code expects, and a second open leaves it there.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { DashboardSessions } from "../../../durable-objects/dashboard-sessions.ts";
import type { PurgeQueue } from "../../../durable-objects/purge-queue.ts";
import { SessionStore } from "../../../src/dashboard/session-store.ts";
import { QueueStore } from "../../../src/purge/queue-store.ts";
import { schemaVersion } from "../../../src/storage/migrations.ts";

const columns = (sql: SqlStorage, table: string) =>
  sql
    .exec<{ name: string }>("SELECT name FROM pragma_table_info(?)", table)
    .toArray()
    .map((c) => c.name);

describe("numbered migrations over older databases", () => {
  it("a purge queue logged before last_error, sent and completed_at gets all three on its first read, at version 4", async () => {
    const stub = env.PURGE_QUEUE.getByName("migrations-legacy-queue") as unknown as DurableObjectStub<PurgeQueue>;
    const after = await runInDurableObject(stub, (_: PurgeQueue, state) => {
      const sql = state.storage.sql;
      sql.exec(`CREATE TABLE log (seq INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT NOT NULL, created_at INTEGER NOT NULL);
        CREATE TABLE pointers (target TEXT PRIMARY KEY, tier TEXT NOT NULL, acked INTEGER NOT NULL, acked_at INTEGER, attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);`);
      sql.exec(
        "INSERT INTO meta (name, value) VALUES ('self', ?)",
        JSON.stringify({ name: "migrations-legacy-queue", region: "weur" }),
      );
      sql.exec(
        "INSERT INTO log (event, created_at) VALUES (?, 1000)",
        JSON.stringify({ seq: 1, id: "migrations-legacy-queue:1" }),
      );
      sql.exec(
        "INSERT INTO pointers (target, tier, acked) VALUES ('t', ?, 1)",
        JSON.stringify({ region: "weur", level: "regional" }),
      );
      const store = new QueueStore(state.storage);
      const status = store.status(1);
      return {
        version: schemaVersion(sql),
        log: columns(sql, "log"),
        pointers: columns(sql, "pointers"),
        status,
        reopened: new QueueStore(state.storage).used() && schemaVersion(sql),
      };
    });
    expect(after.version).toBe(4);
    expect(after.reopened).toBe(4);
    expect(after.log).toContain("completed_at");
    expect(after.pointers).toEqual(expect.arrayContaining(["last_error", "sent"]));
    expect(after.status).toMatchObject({
      acknowledged: true,
      tiers: [{ tier: "t", acknowledged: true, lastError: null }],
    });
  });

  it("dashboard sessions counted in the one-column schema_version keep their sessions and their count", async () => {
    const stub = env.DASHBOARD_SESSIONS.getByName(
      "migrations-legacy-sessions",
    ) as unknown as DurableObjectStub<DashboardSessions>;
    const after = await runInDurableObject(stub, (_: DashboardSessions, state) => {
      const sql = state.storage.sql;
      sql.exec("DROP TABLE IF EXISTS sessions; DROP TABLE IF EXISTS schema_version;");
      sql.exec(`CREATE TABLE sessions (sid TEXT PRIMARY KEY, name TEXT NOT NULL, via TEXT NOT NULL, credential TEXT NOT NULL, scopes TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
        CREATE INDEX sessions_by_expiry ON sessions (expires_at);
        CREATE TABLE schema_version (v INTEGER NOT NULL);
        INSERT INTO schema_version (v) VALUES (1);`);
      sql.exec(
        "INSERT INTO sessions VALUES ('s1', 'ops', 'session', 'c', '[\"purge\"]', 0, ?)",
        Date.now() + 3_600_000,
      );
      const store = new SessionStore(state.storage);
      return {
        version: schemaVersion(sql),
        columns: columns(sql, "schema_version"),
        session: store.get("s1", Date.now()),
      };
    });
    expect(after.version).toBe(1);
    expect(after.columns).toEqual(["id", "version"]);
    expect(after.session).toMatchObject({ sid: "s1", name: "ops", scopes: ["purge"] });
  });
});
