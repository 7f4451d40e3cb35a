/**
 * The phases of one purge-bench Worker (see run.ts for what each measures):
 * write the catalogue, warm it into every tier, and send a burst of operator
 * purges of one kind, optionally killing a TierCache part-way and restoring
 * it a few seconds later, then wait for every purge to complete.
 *
 * @example
 * const run = new PurgeRun(worker, topology, options, log);
 * await run.writeCatalogue();
 * await run.warm();
 * const burst = await run.burst("tags", { tier: "wnam/wnam-a", downMs: 3000 });
 */
import { runLimited } from "../../../lib/run-limited.ts";
import { errorMessage } from "../../../lib/errors.ts";
import { ArchiveClient, ArchiveHttpError } from "../../local/archive-client.ts";
import type { PurgeStatusBody } from "../../../wire.ts";
import type { ApiToken } from "../../local/dev-token.ts";
import { sleep } from "../../../lib/backoff.ts";
import { newRevision } from "../tiers/workload.ts";
import type { TopologyVars } from "../worker-config.ts";
import type { PurgeBenchOptions } from "./run.ts";
import { benchPageKey, purgeBody, warmPaths, type PurgeKind } from "./workload.ts";
import { lastPerQueue } from "../purge-ids.ts";

export interface Fault {
  /** A TierCache by name, as purge status lists it (`wnam/wnam-a`). */
  tier: string;
  /** How long it stays cut off. */
  downMs: number;
}

/** One purge of a burst: when its queue logged it and when its last tier acknowledged it (queue clock). */
export interface FaultTimes {
  tier: string;
  downAt: number;
  restoreAt: number;
  upAt: number;
}

export interface PurgeOutcome {
  id: string;
  createdAt: number;
  completedAt: number | null;
}

export interface BurstResult {
  kind: PurgeKind;
  /** Bench clock when the first purge was sent, and when the last answer came back. */
  startedAt: number;
  sentAt: number;
  outcomes: PurgeOutcome[];
  /** Purges refused with 429 by the per-token rate limit (the bench sizes its tokens so that this stays 0). */
  rateLimited: number;
  /** With a fault: when the tier was cut off (its fault set), when its restore was asked, and when that was done (bench clock). */
  fault: FaultTimes | null;
  /** Tiers that had acknowledged a purge, from its status (the same for every purge). */
  tiers: number;
}

export class PurgeRun {
  readonly errors: string[] = [];
  readonly colos: string[];
  readonly pages: Array<{ key: string; firstRevision: number }> = [];
  /** One client per bench token: each purge goes out under the next token in turn. */
  readonly #purgers: ArchiveClient[];
  #nextToken = 0;
  #nextRevision = 1;
  /** Purges sent per token so far, to prove none crossed the rate. */
  readonly sentPerToken: number[];

  constructor(
    readonly client: ArchiveClient,
    tokens: readonly ApiToken[],
    readonly origin: URL,
    topology: TopologyVars,
    readonly o: PurgeBenchOptions,
    readonly log: (msg: string) => void,
  ) {
    this.colos = Object.values(topology.regions).flatMap((r) => r.colos);
    // One attempt: a purge is not retried behind the bench's back (a retry would be a second purge).
    this.#purgers = tokens.map((t) => new ArchiveClient({ url: client.url, token: t.token, attempts: 1 }));
    this.sentPerToken = tokens.map(() => 0);
  }

  fail(what: string, err: unknown): void {
    this.errors.push(`${what}: ${errorMessage(err)}`);
  }

  /** `pages` pages of two revisions, from colos in turn; done once their write purges are complete, so the measured phases see purges alone. */
  async writeCatalogue(): Promise<void> {
    const started = performance.now();
    const purges: string[] = [];
    await runLimited(
      Array.from({ length: this.o.pages }, (_, i) => i),
      8,
      async (i) => {
        const key = benchPageKey(i);
        const first = this.#nextRevision++;
        const second = this.#nextRevision++;
        try {
          const res = await this.client.append(key, [newRevision(key, first, null), newRevision(key, second, first)], {
            colo: this.colos[i % this.colos.length]!,
          });
          this.pages.push({ key, firstRevision: first });
          purges.push(...res.purges);
        } catch (err) {
          this.fail(`write ${key}`, err);
        }
      },
    );
    this.pages.sort((a, b) => a.key.localeCompare(b.key));
    const pending = (await this.#waitComplete(purges, Date.now() + this.o.lostTimeoutMs)).filter(
      (s) => s.completedAt === null,
    );
    if (pending.length > 0)
      this.fail("catalogue write purges", `${pending.length} not complete after ${this.o.lostTimeoutMs} ms`);
    this.log(
      `catalogue: ${this.pages.length} pages × 2 revisions written and purged in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }

  /** Reads every page's (or these pages') latest and first revision from every colo, so each colo's lower tier, the regional tiers and the upper tier hold them. */
  async warm(pages = this.pages, quiet = false): Promise<void> {
    const started = performance.now();
    const reads = this.colos.flatMap((colo) =>
      pages.flatMap((p) => warmPaths(p.key, p.firstRevision).map((path) => ({ colo, path }))),
    );
    await runLimited(reads, this.o.concurrency, async ({ colo, path }) => {
      try {
        const r = await this.client.read(path, { colo });
        if (r.status !== 200) this.fail(`warm ${path} from ${colo}`, `HTTP ${r.status}`);
      } catch (err) {
        this.fail(`warm ${path} from ${colo}`, err);
      }
    });
    // The lower tier stores what it served in the background (waitUntil); let it land before purging.
    await sleep(200);
    if (!quiet)
      this.log(
        `warm: ${reads.length} reads from ${this.colos.length} colos in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
  }

  /**
   * `purgesPerKind` purges of `kind`, each from the next colo under the next
   * token, each sent once the one before is complete and its page has been
   * read again from every colo, so every tier holds something it covers.
   */
  async oneByOne(kind: PurgeKind): Promise<BurstResult> {
    const statuses: Observed[] = [];
    let rateLimited = 0;
    const startedAt = Date.now();
    for (let i = 0; i < this.o.purgesPerKind; i++) {
      const page = this.pages[i % this.pages.length]!;
      await this.warm([page], true);
      const sent = await this.#send(kind, i);
      if (sent.id !== undefined)
        statuses.push(...(await this.#waitComplete([sent.id], Date.now() + this.o.lostTimeoutMs)));
      if (sent.rateLimited) rateLimited++;
    }
    return {
      kind,
      startedAt,
      sentAt: Date.now(),
      outcomes: outcomesOf(statuses),
      rateLimited,
      fault: null,
      tiers: statuses[0]?.tiers.length ?? 0,
    };
  }

  /**
   * `purgesPerKind` purges of `kind`, `concurrency` in flight, each from the
   * next colo (so every region's queues take some) under the next token;
   * with a fault, the tier is cut off once a quarter of them are sent and
   * restored `downMs` later. Done when every purge is complete, or
   * `lostTimeoutMs` after the last was sent (and the tier restored).
   */
  async burst(kind: PurgeKind, fault: Fault | null): Promise<BurstResult> {
    const ids: string[] = [];
    let rateLimited = 0;
    let faultTimes: FaultTimes | null = null;
    let restored: Promise<void> = Promise.resolve();
    const cutAt = Math.floor(this.o.purgesPerKind / 4);
    // The purge at `cutAt` cuts the tier off; it and every later one are sent once the tier is down.
    let tierDown: () => void = () => undefined;
    const down = new Promise<void>((resolve) => (tierDown = resolve));
    const startedAt = Date.now();
    try {
      await runLimited(
        Array.from({ length: this.o.purgesPerKind }, (_, i) => i),
        this.o.concurrency,
        async (i) => {
          if (fault && i === cutAt) {
            const outage = this.#cutOff(fault, (t) => (faultTimes = t));
            restored = outage.restored;
            void outage.down.then(tierDown);
          }
          if (fault && i >= cutAt) await down;
          const sent = await this.#send(kind, i);
          if (sent.id !== undefined) ids.push(sent.id);
          if (sent.rateLimited) rateLimited++;
        },
      );
    } finally {
      await restored;
    }
    const sentAt = Date.now();
    const statuses = await this.#waitComplete(ids, Math.max(sentAt, Date.now()) + this.o.lostTimeoutMs);
    return {
      kind,
      startedAt,
      sentAt,
      outcomes: outcomesOf(statuses),
      rateLimited,
      fault: faultTimes,
      tiers: statuses[0]?.tiers.length ?? 0,
    };
  }

  /** Purge `i` of a phase: aimed at the next page, from the next colo, under the next token; a refusal is recorded, and said to be the rate limit's if it was. */
  async #send(kind: PurgeKind, i: number): Promise<{ id?: string; rateLimited: boolean }> {
    const page = this.pages[i % this.pages.length]!;
    const token = this.#nextToken++ % this.#purgers.length;
    this.sentPerToken[token]!++;
    try {
      const receipt = await this.#purgers[token]!.purge(purgeBody(kind, page.key, this.origin, page.firstRevision), {
        colo: this.colos[i % this.colos.length]!,
      });
      return { id: receipt.id, rateLimited: false };
    } catch (err) {
      this.fail(`${kind} purge ${i}`, err);
      return { rateLimited: err instanceof ArchiveHttpError && err.status === 429 };
    }
  }

  /** Cuts the tier off now (`down` resolves once it is) and restores it `downMs` later (`restored`). */
  #cutOff(fault: Fault, record: (t: FaultTimes) => void): { down: Promise<void>; restored: Promise<void> } {
    const down = this.client.setTierFaults(fault.tier, { unavailable: true });
    const restored = (async () => {
      try {
        await down;
        const downAt = Date.now();
        await sleep(fault.downMs);
        const restoreAt = Date.now();
        await this.client.setTierFaults(fault.tier, {});
        record({ tier: fault.tier, downAt, restoreAt, upAt: Date.now() });
      } catch (err) {
        this.fail(`cut off ${fault.tier}`, err);
        await this.client.setTierFaults(fault.tier, {}).catch(() => undefined);
      }
    })();
    return { down: down.catch(() => undefined), restored };
  }

  /**
   * Waits (the archive's `?wait=`) on each queue's last purge until it is
   * complete or `deadline` passes, then reads every purge's status once: its
   * `createdAt` and `completedAt` are the queue's own, so how often the bench
   * looks changes neither.
   */
  async #waitComplete(ids: readonly string[], deadline: number): Promise<Observed[]> {
    await Promise.all(
      lastPerQueue(ids).map(async (id) => {
        while (Date.now() < deadline) {
          const wait = Math.max(1, Math.min(10, Math.ceil((deadline - Date.now()) / 1000)));
          const status = await this.client.purgeStatus(id, { waitSeconds: wait }).catch(() => null);
          if (status?.state === "complete") return;
          if (!status) await sleep(100);
        }
      }),
    );
    const statuses: Observed[] = [];
    await runLimited(ids, 8, async (id) => {
      try {
        const status = await this.client.purgeStatus(id);
        statuses.push(status ?? unobserved(id));
      } catch (err) {
        this.fail(`status of ${id}`, err);
        statuses.push(unobserved(id));
      }
    });
    return statuses;
  }
}

/** What the bench saw of a purge: its status, or, for one the archive did not report (unknown, or the status failed), none. */
type Observed = Pick<PurgeStatusBody, "id" | "completedAt" | "tiers"> & { createdAt: number | null };
const unobserved = (id: string): Observed => ({ id, createdAt: null, completedAt: null, tiers: [] });

/** When each purge was logged and completed, by the queue's clock. */
function outcomesOf(statuses: readonly Observed[]): PurgeOutcome[] {
  return statuses.map((s) => ({ id: s.id, createdAt: s.createdAt ?? 0, completedAt: s.completedAt ?? null }));
}
