/**
 * What one scenario of the tiers bench keeps while it runs: the catalogue
 * pages and their revisions, the purges followed, and the requests that
 * failed. Failures are recorded, never retried (the bench counts them), and
 * the phases (phases.ts) share this state.
 *
 * @example
 * const run = new ScenarioRun(client, topology, options, log);
 * const res = await run.write("seed Foo", "Foo", revisions, "SYD"); // null if it failed (recorded)
 */
import type { ArchiveClient } from "../../local/archive-client.ts";
import { errorMessage } from "../../../lib/errors.ts";
import type { WriteBody } from "../../../wire.ts";
import type { NewRevision } from "../../../page/types.ts";
import type { TopologyVars } from "../worker-config.ts";
import { PurgeTracker, type PurgeOutcome } from "./purge-tracker.ts";
import type { TiersBenchOptions } from "./run.ts";
import { catalogueKey } from "./workload.ts";

export interface PageState {
  key: string;
  /** Committed revision ids, oldest first (ids grow over time, so id order is commit order). */
  revisions: number[];
  writing: boolean;
  /** Writes whose purges were acknowledged by every tier: newest revision of the write, and when. */
  acked: Array<{ revision: number; ackedAt: number }>;
}

export interface TrackedPurge {
  id: string;
  outcome: Promise<PurgeOutcome>;
}

export class ScenarioRun {
  readonly errors: string[] = [];
  /** Every purge followed, of every phase. */
  readonly purges: TrackedPurge[] = [];
  readonly pages: PageState[];
  readonly colos: string[];
  readonly tracker: PurgeTracker;
  nextRevision = 1;
  /** Writes that landed, but whose answer (and purge id) wrangler's dev proxy lost. */
  untracked = 0;

  constructor(
    readonly client: ArchiveClient,
    readonly topology: TopologyVars,
    readonly o: TiersBenchOptions,
    readonly log: (msg: string) => void,
  ) {
    this.pages = Array.from({ length: o.pages }, (_, i) => ({
      key: catalogueKey(i),
      revisions: [],
      writing: false,
      acked: [],
    }));
    this.colos = Object.values(topology.regions).flatMap((r) => r.colos);
    this.tracker = new PurgeTracker(client, { intervalMs: o.pollIntervalMs, maxInFlight: o.pollConcurrency });
  }

  fail(what: string, err: unknown): void {
    this.errors.push(`${what}: ${errorMessage(err)}`);
  }

  /** Appends the revisions; null (and a recorded failure) unless they are stored now. */
  async write(what: string, key: string, revisions: NewRevision[], colo: string): Promise<WriteBody | null> {
    try {
      const res = await this.client.append(key, revisions, { colo });
      if (res.created.length === revisions.length) return res;
      // A retried write that had landed (see retryLostByDevProxy): stored, purge id unknown, audited by sequence.
      if (res.created.length === 0 && res.existing.length === revisions.length) {
        this.untracked++;
        return res;
      }
      this.fail(what, `created ${res.created.length} of ${revisions.length} revisions`);
    } catch (err) {
      this.fail(what, err);
    }
    return null;
  }

  /** Follows a write's purges; once acknowledged, `page` counts `revision` as acknowledged. */
  follow(page: PageState | null, revision: number, ids: readonly string[]): TrackedPurge[] {
    return ids.map((id) => {
      const outcome = this.tracker.track(id);
      if (page) void outcome.then((out) => out.ackedAt !== null && page.acked.push({ revision, ackedAt: out.ackedAt }));
      const tracked = { id, outcome };
      this.purges.push(tracked);
      return tracked;
    });
  }
}
