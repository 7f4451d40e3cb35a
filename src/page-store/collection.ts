/**
 * Blob collection: blobs that are dead, or pending from a commit that never
 * landed, are deleted from KV once past the grace period. The PageStore runs
 * this in the same serial queue as writes (durable-objects/page-store.md,
 * "Collection").
 */
import type { BlobStore } from "../storage/blob-store.ts";
import type { PageDb } from "./rows.ts";

export async function collectBlobs(db: PageDb, blobs: BlobStore, graceMs: number, now = Date.now()): Promise<number> {
  const doomed = db.sql
    .exec<{ key: string }>("SELECT key FROM blobs WHERE state != 'live' AND since <= ?", now - graceMs)
    .toArray();
  for (const { key } of doomed) {
    await blobs.delete(key);
    db.sql.exec("DELETE FROM blobs WHERE key = ? AND state != 'live'", key);
  }
  return doomed.length;
}

/** When the next blob becomes collectable, or null if none is waiting. */
export function collectionDueAt(db: PageDb, graceMs: number): number | null {
  const since = db.sql
    .exec<{ next: number | null }>("SELECT min(since) AS next FROM blobs WHERE state != 'live'")
    .one().next;
  return since === null ? null : since + graceMs;
}
