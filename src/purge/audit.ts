/**
 * The purge audit log as routes and the dashboard read it (the storage is
 * durable-objects/purge-audit.ts). Items are kept as the operator sent them,
 * truncated to what is useful to read back.
 */
import { purgeAuditOf } from "../bindings.ts";
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

export async function listAudit(env: Env, { before, limit = LIMITS.purge.auditPageSize }: { before?: string; limit?: number }): Promise<AuditPage> {
  if (before !== undefined && !/^\d{1,15}$/.test(before)) {
    throw new ProblemError({ status: 400, code: "invalid_cursor", title: "Bad Request", detail: "before is not a cursor this API issued" });
  }
  return purgeAuditOf(env).list(before === undefined ? null : Number(before), Math.max(1, Math.min(limit, LIMITS.purge.auditPageSize)));
}
