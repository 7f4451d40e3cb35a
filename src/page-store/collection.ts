/**
 * Blob collection: a page's blobs that are dead, or pending from a commit
 * that never landed, are deleted from KV once past the grace period. The
 * shard runs each page's collection in that page's queue, after its writes
 * (durable-objects/page-store.md, "Collection"), and only ever over the
 * page's own rows: its blobs are in its own key space.
 *
 * The alarm finds what is due by reading the shard's `blobs` table (one
 * pass: no index of its own, which would cost every shard a 4 KiB page);
 * a change that pends or kills blobs sets the alarm for the grace period
 * after it (src/page-store/changes.ts), without reading the table.
 */
import type { BlobStore } from "../storage/blob-store.ts";
import type { PageDb } from "./rows.ts";

export async function collectBlobs(db: PageDb, blobs: BlobStore, graceMs: number, now = Date.now()): Promise<number> {
  if (!db.claimed) return 0;
  const doomed = db.sql
    .exec<{
      key: string;
    }>("SELECT key FROM blobs WHERE pg = ? AND state != 'live' AND since <= ?", db.pg, now - graceMs)
    .toArray();
  for (const { key } of doomed) {
    await blobs.delete(key);
    db.sql.exec("DELETE FROM blobs WHERE pg = ? AND key = ? AND state != 'live'", db.pg, key);
  }
  return doomed.length;
}

/**
 * What the shard's blobs await: the keys of the pages with a blob collectable by `now`, and when the next of the others
 * is.
 */
export function blobsAwaiting(
  sql: SqlStorage,
  graceMs: number,
  now = Date.now(),
): { duePages: string[]; nextDueAt: number | null } {
  const cutoff = now - graceMs;
  // Per page: whether any of its blobs is due, and the first of those that are not yet.
  const rows = sql
    .exec<{ pg: number; due: number; later: number | null }>(
      "SELECT pg, min(since) <= ? AS due, min(CASE WHEN since > ? THEN since END) AS later FROM blobs WHERE state != 'live' GROUP BY pg",
      cutoff,
      cutoff,
    )
    .toArray();
  const due = rows.filter((r) => r.due).map((r) => r.pg);
  const later = rows.filter((r) => r.later !== null).map((r) => r.later! + graceMs);
  const duePages =
    due.length === 0
      ? []
      : sql
          .exec<{ key: string }>(`SELECT key FROM pages WHERE pg IN (${due.map(() => "?").join(", ")})`, ...due)
          .toArray()
          .map((r) => r.key);
  return { duePages, nextDueAt: later.length === 0 ? null : Math.min(...later) };
}
