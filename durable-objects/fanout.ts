/**
 * Fanout: one per region. Takes queues' batches for the tiers of its region,
 * delivers them, and reports each queue's acknowledgements back to it. What
 * it holds lives in memory only: if it is reset, the owning queues'
 * pointers have not moved and they simply deliver again.
 *
 * What makes it cheaper than every queue broadcasting to every tier: batches
 * that arrive for a target while a delivery round is under way wait for the
 * next round and go together, whichever queue sent them, so under load a
 * target pays one application (one transaction, one lower-tier record
 * write) for many purges. Rounds start at most every `fanoutRoundGapMs`
 * (25 ms): a batch is delivered at once unless a round started less than
 * that ago, so a burst of purges costs each tier a few applications, not
 * one per purge, and a lone purge waits at most that long.
 */
import { DurableObject } from "cloudflare:workers";
import { runLimited } from "../src/lib/run-limited.ts";
import { fanoutOf, purgeQueueOf, type QueueSelf } from "../src/bindings.ts";
import type { Region } from "../src/config/topology.ts";
import { LIMITS } from "../src/limits.ts";
import { applyBatchesAt, type QueuedBatch } from "../src/purge/apply.ts";
import { neededBy, type FanoutBatch } from "../src/purge/plan.ts";
import type { PurgeTarget } from "../src/purge/targets.ts";
import { sleep } from "../src/lib/backoff.ts";
import { errorMessage } from "../src/lib/errors.ts";
import { crossRegionHop } from "../src/tiers/link-latency.ts";

interface Waiting {
  tier: PurgeTarget;
  parts: Array<QueuedBatch & { from: QueueSelf }>;
}

type Report = { acks: Array<{ target: string; seq: number }>; failures: Array<{ target: string; error: string }> };

export class Fanout extends DurableObject<Env> {
  readonly #waiting = new Map<string, Waiting>();
  #round: Promise<void> | null = null;
  /** This Fanout's region, as its batches say. */
  #region: Region | null = null;
  /** When the last delivery round started (0: never). */
  #roundAt = 0;

  /**
   * Hands batches on to other regions' Fanouts for a queue of this region
   * (the queue's own connections being taken by the rest of its round), and
   * returns at once. A batch that cannot be handed on is reported to its
   * queue as a failure for each of its tiers, which the queue retries.
   */
  relay(batches: FanoutBatch[]): { accepted: number } {
    const forwarding = runLimited(batches, LIMITS.purge.maxConcurrentDeliveries, async (batch) => {
      try {
        await crossRegionHop(this.env, batch.queue.region, batch.region);
        await fanoutOf(this.env, batch.region).deliver(batch);
      } catch (err) {
        const error = `relay to ${batch.region}: ${errorMessage(err)}`;
        console.warn("fanout could not relay a batch; the queue will retry", error);
        await this.#report(batch.queue, { acks: [], failures: batch.targets.map(({ target }) => ({ target, error })) });
      }
    });
    this.ctx.waitUntil(forwarding);
    return { accepted: batches.length };
  }

  /** Accepts a batch and returns at once; delivery and acknowledgement follow. */
  deliver(batch: FanoutBatch): { accepted: number } {
    this.#region = batch.region;
    for (const t of batch.targets) {
      const waiting = this.#waiting.get(t.target) ?? { tier: t.tier, parts: [] };
      waiting.parts.push({ queue: batch.queue.name, from: batch.queue, batch: neededBy(t.acked, batch) });
      this.#waiting.set(t.target, waiting);
    }
    this.#round ??= this.#deliverAll().finally(() => (this.#round = null));
    this.ctx.waitUntil(this.#round);
    return { accepted: batch.targets.length };
  }

  /** Delivery rounds until nothing waits: each round takes everything that arrived during the one before. */
  async #deliverAll(): Promise<void> {
    while (this.#waiting.size > 0) {
      const gap = this.#roundAt + LIMITS.purge.fanoutRoundGapMs - Date.now();
      if (gap > 0) await sleep(gap);
      this.#roundAt = Date.now();
      const round = [...this.#waiting];
      this.#waiting.clear();
      const reports = new Map<string, { queue: QueueSelf; report: Report }>();
      const reportOf = (queue: QueueSelf): Report => {
        let entry = reports.get(queue.name);
        if (!entry) reports.set(queue.name, (entry = { queue, report: { acks: [], failures: [] } }));
        return entry.report;
      };
      await runLimited(round, LIMITS.purge.maxConcurrentDeliveries, async ([target, { tier, parts }]) => {
        try {
          const applied = await applyBatchesAt(this.env, tier, parts);
          applied.forEach(({ seq }, i) => reportOf(parts[i]!.from).acks.push({ target, seq }));
        } catch (err) {
          const error = errorMessage(err);
          console.warn("fanout delivery failed; the queue will retry", target, error);
          for (const part of parts) reportOf(part.from).failures.push({ target, error });
        }
      });
      // Reports travel while the next round starts: a slow hop back to one queue holds up no one.
      for (const { queue, report } of reports.values()) this.ctx.waitUntil(this.#report(queue, report));
    }
  }

  async #report(queue: QueueSelf, { acks, failures }: Report): Promise<void> {
    try {
      await crossRegionHop(this.env, this.#region ?? queue.region, queue.region);
      // Failures go back too: the queue retries them on its backoff (and shows why) instead of waiting out the ack
      // timeout.
      await purgeQueueOf(this.env, queue).ack(acks, failures);
    } catch (err) {
      console.warn("fanout could not report acknowledgements; the queue will redeliver", queue.name, errorMessage(err));
    }
  }
}
