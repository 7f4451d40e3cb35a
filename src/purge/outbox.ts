/**
 * The PageStore's purge outbox, one per shard. A change records its purge
 * in the same transaction that commits it, so a committed write can never
 * lose its purge; draining hands each to the PurgeQueue of the writer's
 * region, and what fails stays for the alarm to retry with backoff. Rows
 * carry their page's `pg`: a change drains its own page's purges only (its
 * answer names them), in that page's queue.
 */
import { purgeQueueFor, purgeQueueOf } from "../bindings.ts";
import { LIMITS } from "../limits.ts";
import { backoffMs } from "../lib/backoff.ts";
import type { PurgeRequest } from "./events.ts";

/** The page whose purges these are: its shard's database, and its `pg` there. */
export interface OutboxPage {
  sql: SqlStorage;
  pg: number;
}

/** Records a purge; call inside the change's transaction. */
export function recordPurge(page: OutboxPage, request: PurgeRequest, now = Date.now()): void {
  page.sql.exec("INSERT INTO outbox (pg, request, next_at) VALUES (?, ?, ?)", page.pg, JSON.stringify(request), now);
}

/**
 * Hands the page's recorded purges to their queues, oldest first; returns the purge ids issued. Stops at the first
 * failure, so order holds.
 */
export async function drainOutbox(env: Env, page: OutboxPage): Promise<string[]> {
  const { sql } = page;
  const ids: string[] = [];
  const rows = sql
    .exec<{
      id: number;
      request: string;
      attempts: number;
    }>("SELECT id, request, attempts FROM outbox WHERE pg = ? ORDER BY id", page.pg)
    .toArray();
  for (const row of rows) {
    const request = JSON.parse(row.request) as PurgeRequest;
    try {
      const queue = await purgeQueueFor(env, request.region, request.page ?? "");
      const { id } = await purgeQueueOf(env, queue).enqueue(request, queue);
      sql.exec("DELETE FROM outbox WHERE id = ?", row.id);
      ids.push(id);
    } catch (err) {
      console.error("purge enqueue failed; will retry", request.page, err);
      const delay = backoffMs(row.attempts, LIMITS.purge.retryBaseMs, LIMITS.purge.retryMaxMs);
      sql.exec("UPDATE outbox SET attempts = attempts + 1, next_at = ? WHERE id = ?", Date.now() + delay, row.id);
      break;
    }
  }
  return ids;
}

/** The keys of the shard's pages with purges waiting in the outbox. */
export function pagesWithPurges(sql: SqlStorage): string[] {
  return sql
    .exec<{ key: string }>("SELECT key FROM pages WHERE pg IN (SELECT pg FROM outbox)")
    .toArray()
    .map((r) => r.key);
}

/** When the shard's next recorded purge is due, or null if the outbox is empty. */
export function outboxDueAt(sql: SqlStorage): number | null {
  return sql.exec<{ next: number | null }>("SELECT min(next_at) AS next FROM outbox").one().next;
}
