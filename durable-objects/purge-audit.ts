/**
 * PurgeAudit: the operators' purge log, one object for the archive. Who
 * (the token's name), what (kind, items, soft or hard), when, how many cache
 * keys it named, what was dropped, and when every tier had acknowledged it
 * (reported by the owning queue). Newest first, paginated by a cursor.
 *
 * Beside it, the takedown log (hides and shows of revisions' fields, page
 * deletions and restores: who, when, what, why), in a table of its own made
 * with the first takedown.
 *
 * A shell over src/purge/audit-store.ts and src/purge/takedown-store.ts, which hold the logs.
 */
import { DurableObject } from "cloudflare:workers";
import type { AuditEntry, AuditPage } from "../src/purge/audit.ts";
import { AuditStore } from "../src/purge/audit-store.ts";
import type { TakedownEntry, TakedownPage } from "../src/purge/takedown-log.ts";
import { TakedownStore } from "../src/purge/takedown-store.ts";

export class PurgeAudit extends DurableObject<Env> {
  readonly #store: AuditStore;
  readonly #takedowns: TakedownStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new AuditStore(ctx.storage);
    this.#takedowns = new TakedownStore(ctx.storage);
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

  /** Records a takedown; returns its id (the log's cursor). */
  recordTakedown(entry: Omit<TakedownEntry, "id">): string {
    return this.#takedowns.record(entry);
  }

  /** Takedowns newest first, of one page (a canonical title) or all. */
  listTakedowns(page: string | null, before: number | null, limit: number): TakedownPage {
    return this.#takedowns.list(page, before, limit);
  }
}
