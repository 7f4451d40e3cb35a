/**
 * The PageStore's jobs are modules that work on a page database alone: here
 * collection and the outbox run against a Durable Object's storage without
 * the PageStore class, and without each other.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { collectBlobs, collectionDueAt } from "../../../src/page-store/collection.ts";
import { PageDb } from "../../../src/page-store/rows.ts";
import { outboxDueAt, recordPurge } from "../../../src/purge/outbox.ts";
import type { BlobStore } from "../../../src/storage/blob-store.ts";

/** A fresh PageStore's storage, used by the modules directly rather than through the class. */
function withPageDb<T>(name: string, run: (db: PageDb) => Promise<T> | T): Promise<T> {
  return runInDurableObject(env.PAGE_STORE.getByName(`Modules_${name}`), (_instance, state) =>
    run(new PageDb(state.storage)),
  );
}

describe("PageStore modules on their own", () => {
  it("collection deletes only blobs that are not live and are past the grace period", async () => {
    const deleted = await withPageDb("collection", async (db) => {
      const now = 1_000_000;
      const rows: Array<[string, string, number]> = [
        ["live-old", "live", 0],
        ["dead-old", "dead", 0],
        ["pending-old", "pending", 10],
        ["dead-new", "dead", now - 50],
      ];
      for (const [key, state, since] of rows)
        db.sql.exec("INSERT INTO blobs (key, bytes, state, since) VALUES (?, 1, ?, ?)", key, state, since);
      const gone: string[] = [];
      const blobs = { delete: async (key: string) => void gone.push(key) } as unknown as BlobStore;
      expect(await collectBlobs(db, blobs, 100, now)).toBe(2);
      expect(collectionDueAt(db, 100)).toBe(now - 50 + 100);
      return gone.sort();
    });
    expect(deleted).toEqual(["dead-old", "pending-old"]);
  });

  it("the outbox is due at once for a recorded purge, and empty otherwise", async () => {
    const due = await withPageDb("outbox", (db) => {
      const before = outboxDueAt(db.sql);
      db.transaction(() =>
        recordPurge(db.sql, { page: "P", scope: { kind: "mutable" }, version: db.bumpVersion(), region: "weur" }, 42),
      );
      return { before, after: outboxDueAt(db.sql), version: db.version() };
    });
    expect(due).toEqual({ before: null, after: 42, version: 1 });
  });
});
