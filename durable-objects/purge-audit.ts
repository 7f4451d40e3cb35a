/**
 * PurgeAudit: the operators' purge log, one object for the archive. Who
 * (the token's name), what (kind, items, soft or hard), when, how many cache
 * keys it named, what was dropped, and when every tier had acknowledged it
 * (reported by the owning queue). Newest first, paginated by a cursor.
 *
 * A shell over src/purge/audit-store.ts, which holds the log.
 */
import { DurableObject } from "cloudflare:workers";
import type { AuditEntry, AuditPage } from "../src/purge/audit.ts";
import { AuditStore } from "../src/purge/audit-store.ts";

export class PurgeAudit extends DurableObject<Env> {
  readonly #store: AuditStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new AuditStore(ctx.storage);
  }

  record(entry: Omit<AuditEntry, "completedAt">): void {
    this.#store.record(entry);
  }

  /** Completions reported by the owning queues; one for a purge not yet recorded waits for its record. */
  completed(done: Array<{ id: string; at: number }>): void {
    this.#store.completed(done);
  }

  /** Newest first; `before` is the cursor a previous page returned. */
  list(before: number | null, limit: number): AuditPage {
    return this.#store.list(before, limit);
  }
}
