/**
 * Follows purges until every tier has acknowledged them, by polling
 * `GET /api/purges/{id}` (every `intervalMs` per purge, with at most
 * `maxInFlight` status requests at once so the polling does not swamp the
 * queues it watches).
 *
 * The acknowledgement time is taken from the status body, not from the
 * poll: for each tier, the `ackedAt` of the first poll that shows it
 * acknowledged; the purge's time is the latest of those, minus the event's
 * `createdAt` (the queue's clock when it logged the purge). A pointer's
 * `ackedAt` is rewritten by every later acknowledgement, so the first
 * sighting is the closest to the real moment: never earlier than it, and
 * later only if another acknowledgement of that pointer landed between the
 * real one and the poll. Queue and bench share the host's wall clock.
 *
 * @example
 * const tracker = new PurgeTracker(api);
 * const outcome = await tracker.track("weur-q1:7"); // { acknowledged: true, ackMs: 93, ... }
 * await tracker.settle(30_000); // whatever is still unacknowledged 30 s from now is lost
 */
import { Semaphore, sleep, type TiersApi } from "./http.ts";

export interface PurgeOutcome {
  id: string;
  /** The queue's `createdAt` for the event, or null if its status was never read. */
  createdAt: number | null;
  /** When the last tier acknowledged it (queue clock), or null if some tier never did. */
  ackedAt: number | null;
  /** ackedAt − createdAt, in ms. */
  ackMs: number | null;
  acknowledged: boolean;
  /** Tiers that had not acknowledged by the deadline. */
  missing: string[];
}

export class PurgeTracker {
  readonly #pending = new Set<Promise<PurgeOutcome>>();
  readonly #polls: Semaphore;
  #deadline = Number.POSITIVE_INFINITY;
  /** Status requests made so far. */
  polls = 0;

  constructor(
    private readonly api: TiersApi,
    private readonly opts: { intervalMs: number; maxInFlight: number } = { intervalMs: 10, maxInFlight: 8 },
  ) {
    this.#polls = new Semaphore(opts.maxInFlight);
  }

  track(id: string): Promise<PurgeOutcome> {
    const p = this.#follow(id).finally(() => this.#pending.delete(p));
    this.#pending.add(p);
    return p;
  }

  /** Stops following anything still unacknowledged `timeoutMs` from now, and waits for every purge followed. */
  async settle(timeoutMs: number): Promise<void> {
    this.#deadline = Date.now() + timeoutMs;
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
    this.#deadline = Number.POSITIVE_INFINITY;
  }

  async #follow(id: string): Promise<PurgeOutcome> {
    const firstSeen = new Map<string, number>();
    let createdAt: number | null = null;
    let missing: string[] = [];
    for (;;) {
      this.polls++;
      const status = await this.#polls.with(() => this.api.purgeStatus(id)).catch(() => null);
      if (status) {
        createdAt = status.event?.createdAt ?? createdAt;
        for (const t of status.tiers) if (t.acknowledged && !firstSeen.has(t.tier)) firstSeen.set(t.tier, t.ackedAt ?? Date.now());
        missing = status.tiers.filter((t) => !t.acknowledged).map((t) => t.tier);
        if (status.acknowledged && status.tiers.length > 0) {
          const ackedAt = Math.max(...firstSeen.values());
          return { id, createdAt, ackedAt, ackMs: createdAt === null ? null : Math.max(0, ackedAt - createdAt), acknowledged: true, missing: [] };
        }
      }
      if (Date.now() >= this.#deadline) return { id, createdAt, ackedAt: null, ackMs: null, acknowledged: false, missing: status ? missing : ["(status unavailable)"] };
      await sleep(this.opts.intervalMs);
    }
  }
}
