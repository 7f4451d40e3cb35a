/**
 * Fanout: one per region. Takes a queue's batch for the tiers of its region,
 * delivers it to each, and reports the acknowledgements back to the owning
 * queue in one call. What it holds lives in memory only: if it is reset, the
 * owning queue's pointers have not moved and it simply delivers again.
 */
import { DurableObject } from "cloudflare:workers";
import { runLimited } from "../src/async/run-limited.ts";
import { purgeQueueOf, type QueueSelf } from "../src/bindings.ts";
import type { Region } from "../src/config/topology.ts";
import { LIMITS } from "../src/limits.ts";
import { applyAt } from "../src/purge/apply.ts";
import { neededBy, type PurgeBatch } from "../src/purge/plan.ts";
import type { PurgeTarget } from "../src/purge/targets.ts";
import { crossRegionHop } from "../src/sim/link-latency.ts";

export interface FanoutBatch extends PurgeBatch {
  queue: QueueSelf;
  region: Region;
  targets: Array<{ target: string; tier: PurgeTarget; acked: number }>;
}

export class Fanout extends DurableObject<Env> {
  delivered = 0;

  /**
   * Accepts a batch and returns at once; delivery and acknowledgement follow.
   * Batches from different queues are handled side by side: one queue's slow
   * acknowledgement hop must not hold up another's.
   */
  deliver(batch: FanoutBatch): { accepted: number } {
    this.ctx.waitUntil(this.#handle(batch));
    return { accepted: batch.targets.length };
  }

  async #handle(batch: FanoutBatch): Promise<void> {
    const acks: Array<{ target: string; seq: number }> = [];
    const failures: Array<{ target: string; error: string }> = [];
    await runLimited(batch.targets, LIMITS.purge.maxConcurrentDeliveries, async (t) => {
      try {
        acks.push({ target: t.target, seq: await applyAt(this.env, t.tier, batch.queue.name, neededBy(t.acked, batch)) });
        this.delivered++;
      } catch (err) {
        console.warn("fanout delivery failed; the queue will retry", t.target, (err as Error)?.message ?? err);
        failures.push({ target: t.target, error: String((err as Error)?.message ?? err) });
      }
    });
    try {
      await crossRegionHop(this.env, batch.region, batch.queue.region);
      // Failures go back too: the queue retries them on its backoff (and shows why) instead of waiting out the ack timeout.
      await purgeQueueOf(this.env, batch.queue).ack(acks, failures);
    } catch (err) {
      console.warn("fanout could not report acknowledgements; the queue will redeliver", batch.queue.name, (err as Error)?.message ?? err);
    }
  }
}
