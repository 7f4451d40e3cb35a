/**
 * Follows purges until every tier has acknowledged them, by polling
 * `GET /api/purges/{id}` in rounds: every purge still followed once per
 * round, at most `maxInFlight` status requests at once so the polling does
 * not swamp the queues it watches, and `intervalMs` between rounds.
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
 * const tracker = new PurgeTracker(client);
 * const outcome = await tracker.track("weur-q1:7"); // { acknowledged: true, ackMs: 93, ... }
 * await tracker.settle(30_000); // whatever is still unacknowledged 30 s from now is lost
 */
import { runLimited } from "../../../lib/run-limited.ts";
import type { ArchiveClient } from "../../local/archive-client.ts";
import type { PurgeStatusBody } from "../../../wire.ts";
import { sleep } from "../../../lib/backoff.ts";

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

/** One purge being followed: what the polls have shown so far. */
class Followed {
  readonly firstSeen = new Map<string, number>();
  createdAt: number | null = null;
  missing = ["(status unavailable)"];

  constructor(
    readonly id: string,
    readonly resolve: (outcome: PurgeOutcome) => void,
  ) {}

  /** Takes in one status; true once every tier has acknowledged. */
  saw(status: PurgeStatusBody): boolean {
    this.createdAt = status.event?.createdAt ?? this.createdAt;
    for (const t of status.tiers)
      if (t.acknowledged && !this.firstSeen.has(t.tier)) this.firstSeen.set(t.tier, t.ackedAt ?? Date.now());
    this.missing = status.tiers.filter((t) => !t.acknowledged).map((t) => t.tier);
    if (!status.acknowledged || status.tiers.length === 0) return false;
    const ackedAt = Math.max(...this.firstSeen.values());
    const ackMs = this.createdAt === null ? null : Math.max(0, ackedAt - this.createdAt);
    this.resolve({ id: this.id, createdAt: this.createdAt, ackedAt, ackMs, acknowledged: true, missing: [] });
    return true;
  }

  giveUp(): void {
    this.resolve({
      id: this.id,
      createdAt: this.createdAt,
      ackedAt: null,
      ackMs: null,
      acknowledged: false,
      missing: this.missing,
    });
  }
}

export class PurgeTracker {
  readonly #followed = new Set<Followed>();
  #rounds: Promise<void> | null = null;
  #deadline = Number.POSITIVE_INFINITY;
  /** Status requests made so far. */
  polls = 0;

  constructor(
    private readonly client: ArchiveClient,
    private readonly opts: { intervalMs: number; maxInFlight: number } = { intervalMs: 10, maxInFlight: 8 },
  ) {}

  track(id: string): Promise<PurgeOutcome> {
    return new Promise((resolve) => {
      this.#followed.add(new Followed(id, resolve));
      this.#rounds ??= this.#poll();
    });
  }

  /** Stops following anything still unacknowledged `timeoutMs` from now, and waits for every purge followed. */
  async settle(timeoutMs: number): Promise<void> {
    this.#deadline = Date.now() + timeoutMs;
    while (this.#rounds) await this.#rounds;
    this.#deadline = Number.POSITIVE_INFINITY;
  }

  async #poll(): Promise<void> {
    for (;;) {
      await runLimited([...this.#followed], this.opts.maxInFlight, async (f) => {
        this.polls++;
        const status = await this.client.purgeStatus(f.id).catch(() => null);
        if (status && f.saw(status)) this.#followed.delete(f);
      });
      if (Date.now() >= this.#deadline) {
        for (const f of this.#followed) f.giveUp();
        this.#followed.clear();
      }
      if (this.#followed.size === 0) return void (this.#rounds = null);
      await sleep(this.opts.intervalMs);
    }
  }
}
