/**
 * The purge audit log as routes and the dashboard read it (the storage is
 * src/purge/audit-store.ts). Items are kept as the operator sent them,
 * truncated to what is useful to read back.
 */
import { parsePurgeId, purgeAuditOf, purgeQueueOf, type QueueSelf } from "../bindings.ts";
import { errorMessage } from "../lib/errors.ts";
import { topologyOf } from "../config/topology.ts";
import { ProblemError } from "../http/problem.ts";
import { LIMITS } from "../limits.ts";

export interface AuditEntry {
  /** The purge id (`<queue>:<seq>`). */
  id: string;
  /** The name of the token (or dashboard login) that asked. */
  by: string;
  kind: string;
  soft: boolean;
  items: string[];
  /** Cache keys, tags, prefixes or hosts it named, after dropping what the archive never caches. */
  keys: number;
  dropped: number;
  createdAt: number;
  completedAt: number | null;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Cursor for the next older page (`?before=`), if any. */
  next: string | null;
}

/** Items recorded per purge: enough to see what it was about; the count is in `keys`. */
const ITEMS_KEPT = 20;

export async function recordAudit(env: Env, entry: Omit<AuditEntry, "completedAt">): Promise<void> {
  await purgeAuditOf(env).record({ ...entry, items: entry.items.slice(0, ITEMS_KEPT).map((i) => i.slice(0, 300)) });
}

/** A log's `?before=` cursor (the purge audit's, the takedown log's): null for none; 400 for one no log gave. */
export function logCursor(before: string | undefined): number | null {
  if (before === undefined) return null;
  if (!/^\d{1,15}$/.test(before))
    throw new ProblemError({
      status: 400,
      code: "invalid_cursor",
      detail: "before is not a cursor this API issued",
    });
  return Number(before);
}

export async function listAudit(
  env: Env,
  { before, limit = LIMITS.purge.auditPageSize }: { before?: string; limit?: number },
): Promise<AuditPage> {
  const page = await purgeAuditOf(env).list(
    logCursor(before),
    Math.max(1, Math.min(limit, LIMITS.purge.auditPageSize)),
  );
  await fillCompletions(env, page.entries);
  return page;
}

/**
 * The owning queue reports a completion to the log after the fact, and
 * may lose the report; the queue itself is the authority. So an entry
 * still open asks its queue (one call per queue), and what it learns is
 * written back.
 */
async function fillCompletions(env: Env, entries: AuditEntry[]): Promise<void> {
  const open = new Map<string, { queue: QueueSelf; entries: Array<{ entry: AuditEntry; seq: number }> }>();
  for (const entry of entries) {
    if (entry.completedAt !== null) continue;
    const parsed = parsePurgeId(entry.id, topologyOf(env));
    if (!parsed.ok) continue;
    const group =
      open.get(parsed.queue.name) ??
      open.set(parsed.queue.name, { queue: parsed.queue, entries: [] }).get(parsed.queue.name)!;
    group.entries.push({ entry, seq: parsed.seq });
  }
  const learned: Array<{ id: string; at: number }> = [];
  await Promise.all(
    [...open.values()].map(async ({ queue, entries: waiting }) => {
      // A queue that cannot answer leaves its entries open; the list still reads.
      const times = await purgeQueueOf(env, queue)
        .completedAt(waiting.map((w) => w.seq))
        .catch(
          (err: unknown) => (
            console.warn("audit: queue did not answer", queue.name, errorMessage(err)),
            [] as Array<number | null>
          ),
        );
      waiting.forEach(({ entry }, i) => {
        const at = times[i];
        if (at == null) return;
        entry.completedAt = at;
        learned.push({ id: entry.id, at });
      });
    }),
  );
  // Only a cache of the queues' answer: if it cannot be written, the next listing asks again.
  if (learned.length > 0)
    await purgeAuditOf(env)
      .completed(learned)
      .catch((err: unknown) => console.warn("audit: completion write-back failed", errorMessage(err)));
}
