/**
 * PurgeQueue: one of a region's pool of purge queues (after Cloudflare's
 * coreless purge). It appends each purge to a persistent log with a sequence
 * number and keeps one pointer per target tier: the last sequence that tier
 * acknowledged. Whatever is not acknowledged is retried from the alarm with
 * jittered backoff, by replay from the pointer, so a tier or queue reset
 * mid-broadcast loses nothing.
 *
 * A shell: the log and pointers are src/purge/queue-store.ts, a delivery
 * pass is src/purge/queue-delivery.ts. This class runs the passes one at a
 * time, keeps the alarm, and tells the audit log of completed purges.
 */
import { DurableObject } from "cloudflare:workers";
import { errorMessage } from "../src/lib/errors.ts";
import { purgeAuditOf, type QueueSelf } from "../src/bindings.ts";
import { LIMITS } from "../src/limits.ts";
import type { PurgeEvent, PurgeRequest } from "../src/purge/events.ts";
import { deliverPass } from "../src/purge/queue-delivery.ts";
import { QueueStore, type PurgeStatus, type QueueLoad } from "../src/purge/queue-store.ts";
import { purgeTargets } from "../src/purge/targets.ts";

export class PurgeQueue extends DurableObject<Env> {
  readonly #store: QueueStore;
  #delivering: Promise<void> | null = null;
  #again = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new QueueStore(ctx.storage);
  }

  /** Appends a purge to the log and starts delivering it; answers as soon as it is durable. */
  enqueue(request: PurgeRequest, self: QueueSelf): { id: string; seq: number } {
    const now = Date.now();
    const event = this.#store.enqueue(request, self, purgeTargets(this.env), now);
    // A safety net: if this object is reset mid-delivery, the alarm resumes it.
    this.ctx.waitUntil(this.#alarmBy(now + LIMITS.purge.fanoutAckTimeoutMs));
    this.#kick();
    return { id: event.id, seq: event.seq };
  }

  /**
   * Records acknowledgements (a pointer only moves forward) and a fanout's failed deliveries, which retry on backoff.
   */
  ack(acks: Array<{ target: string; seq: number }>, failures: Array<{ target: string; error: string }> = []): void {
    const now = Date.now();
    for (const { target, error } of failures) this.#store.failedAt(target, error);
    if (failures.length > 0) this.ctx.waitUntil(this.#scheduleRetry());
    this.#store.acked(acks, now);
    this.#reportCompleted(this.#store.complete(now), now);
    // Purges enqueued while these tiers waited on their fanout were skipped: deliver them now.
    const last = this.#store.lastSeq();
    if (acks.some(({ seq }) => seq < last)) this.#kick();
  }

  /**
   * Tells the audit log when an operator's purge completed. The report may
   * be lost (the status, read from here, stays right); it is not retried.
   */
  #reportCompleted(done: PurgeEvent[], now: number): void {
    if (done.length === 0) return;
    this.ctx.waitUntil(
      purgeAuditOf(this.env)
        .completed(done.map((e) => ({ id: e.id, at: now })))
        .catch((err) => console.warn("audit completion report lost", errorMessage(err))),
    );
  }

  /**
   * When each of these purges completed, as dated when it did; null where not
   * yet, or no longer in the retained log (whose later stand-in date, the last
   * acknowledgement, must not be written into the audit as if it were exact).
   */
  completedAt(seqs: number[]): Array<number | null> {
    return this.#store.completedAt(seqs);
  }

  /** Each target's acknowledgement of one purge; null if this queue never logged it. */
  status(seq: number): PurgeStatus | null {
    return this.#store.status(seq);
  }

  load(): QueueLoad {
    return this.#store.load(Date.now());
  }

  override async alarm(): Promise<void> {
    if (!this.#store.used()) return;
    // Through the same loop as every other pass: passes never overlap, so a Fanout sees one queue's batches in order.
    this.#kick();
    await this.#delivering;
  }

  #kick(): void {
    if (this.#delivering) {
      this.#again = true;
      return;
    }
    this.#delivering = (async () => {
      try {
        do {
          this.#again = false;
          await deliverPass(this.env, this.#store, (acks) => this.ack(acks));
          await this.#scheduleRetry();
        } while (this.#again);
      } finally {
        this.#delivering = null;
      }
    })();
    this.ctx.waitUntil(this.#delivering);
  }

  async #alarmBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  async #scheduleRetry(): Promise<void> {
    const next = this.#store.nextRetryAt();
    if (next === null) return;
    await this.#alarmBy(Math.max(next, Date.now() + 10));
  }
}
