/**
 * The PageStore's jobs are modules that work on a shard's database alone:
 * here collection and the outbox run against a Durable Object's storage
 * without the PageStore class, and without each other, each over its own
 * page's rows.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { blobsAwaiting, collectBlobs } from "../../../src/page-store/collection.ts";
import { PageDb } from "../../../src/page-store/rows.ts";
import { openShardSchema } from "../../../src/page-store/schema.ts";
import { outboxDueAt, recordPurge } from "../../../src/purge/outbox.ts";
import type { BlobStore } from "../../../src/storage/blob-store.ts";

/** Two pages of a fresh shard, used by the modules directly rather than through the class. */
function withPages<T>(name: string, run: (a: PageDb, b: PageDb) => Promise<T> | T): Promise<T> {
  return runInDurableObject(env.PAGE_STORE.getByName(`Modules_${name}`), (_instance, state) => {
    openShardSchema(state.storage).create();
    const [a, b] = ["A", "B"].map((key) => {
      const db = PageDb.open(state.storage, key, true);
      db.claim(key);
      return db;
    });
    return run(a!, b!);
  });
}

describe("PageStore modules on their own", () => {
  it("collection deletes only the page's own blobs that are not live and are past the grace period", async () => {
    const deleted = await withPages("collection", async (db, other) => {
      const now = 1_000_000;
      const rows: Array<[string, string, number]> = [
        ["live-old", "live", 0],
        ["dead-old", "dead", 0],
        ["pending-old", "pending", 10],
        ["dead-new", "dead", now - 50],
      ];
      for (const page of [db, other])
        for (const [key, state, since] of rows)
          db.sql.exec(
            "INSERT INTO blobs (pg, key, bytes, state, since) VALUES (?, ?, 1, ?, ?)",
            page.pg,
            `${page.key}-${key}`,
            state,
            since,
          );
      const gone: string[] = [];
      const blobs = { delete: async (key: string) => void gone.push(key) } as unknown as BlobStore;
      expect(await collectBlobs(db, blobs, 100, now)).toBe(2);
      expect(db.sql.exec<{ n: number }>("SELECT count(*) AS n FROM blobs WHERE pg = ?", other.pg).one().n).toBe(4);
      // Page B's are still there, two of them due; page A's next is its dead-new, due 50 ms from now.
      expect(blobsAwaiting(db.sql, 100, now)).toEqual({ duePages: ["B"], nextDueAt: now - 50 + 100 });
      return gone.sort();
    });
    expect(deleted).toEqual(["A-dead-old", "A-pending-old"]);
  });

  it("the outbox is due at once for a recorded purge, and empty otherwise", async () => {
    const due = await withPages("outbox", (db) => {
      const before = outboxDueAt(db.sql);
      db.transaction(() =>
        recordPurge(db, { page: "P", scope: { kind: "mutable" }, version: db.bumpVersion(), region: "weur" }, 42),
      );
      return { before, after: outboxDueAt(db.sql), version: db.version() };
    });
    expect(due).toEqual({ before: null, after: 42, version: 1 });
  });
});
