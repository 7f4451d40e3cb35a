/**
 * The order a shard's changes run in, and what follows each: a page's
 * writes, removals and collection run one at a time, in a queue of its own
 * (pages of one shard never wait for each other; reads never wait); a
 * change's purges go from the outbox to the queues before it answers; the
 * alarm is set for whichever comes first, a purge to retry or a blob to
 * collect; and the page's directory shard hears what the page now stores.
 *
 * @example
 * const changes = new PageChanges(ctx, env);
 * return changes.serialized(key, () => changes.issued(db, deletePage(db, ref, region)));
 */
import { settingsOf } from "../config/settings.ts";
import { reportFigures } from "../page/directory.ts";
import type { StoreProblem } from "../page/types.ts";
import { drainOutbox, outboxDueAt } from "../purge/outbox.ts";
import { pageFigures } from "./history.ts";
import type { PageDb } from "./rows.ts";

/** A change's answer: what it did, the page's version after it, and the purges it issued. */
export type Changed<T> = (T & { ok: true; purges: string[]; version: number }) | StoreProblem;

export class PageChanges {
  /** Each page's queue: the last job's settling, dropped once nothing is behind it. */
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #figuresDue = new Set<string>();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
  ) {}

  /**
   * Runs `job` after every write, removal and collection of page `key`
   * before it. Writes must see each other's effects, and collection must
   * never decide a blob is dead while a write of the page is about to name
   * it again.
   */
  serialized<T>(key: string, job: () => Promise<T>): Promise<T> {
    const run = (this.#queues.get(key) ?? Promise.resolve()).then(job);
    const settled = run.catch(() => undefined);
    this.#queues.set(key, settled);
    void settled.then(() => {
      if (this.#queues.get(key) === settled) this.#queues.delete(key);
    });
    return run;
  }

  /**
   * Sets the alarm for whichever comes first in the shard: a purge to retry, or a blob to collect,
   * `collectAt` (a change that pends or kills blobs at time t passes t + the grace period; the alarm
   * passes the next it found).
   */
  async scheduleAlarm(collectAt: number | null = null): Promise<void> {
    const due = [outboxDueAt(this.ctx.storage.sql), collectAt].filter((t): t is number => t !== null);
    if (due.length === 0) return;
    const at = Math.min(...due);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /** When blobs pended or killed now become collectable. */
  collectionDue(now = Date.now()): number {
    return now + settingsOf(this.env).orphanGraceMs;
  }

  /**
   * Hands the page's outbox to the purge queues and answers with the change's purge ids; `killedBlobs`
   * when the change made blobs dead (the alarm must come to collect them).
   */
  async issued<T extends { ok: true }>(db: PageDb, result: T | StoreProblem, killedBlobs = false): Promise<Changed<T>> {
    if (!result.ok) return result;
    const purges = await drainOutbox(this.env, db);
    await this.scheduleAlarm(killedBlobs ? this.collectionDue() : null);
    return { ...result, purges, version: db.version() };
  }

  /** Reports the figures before the change answers: a deletion or restore must reach the listings it changes. */
  async reportFiguresNow(db: PageDb): Promise<void> {
    await reportFigures(this.env, db.key, () => pageFigures(db, db.key, Date.now()));
  }

  /**
   * Tells the page's directory shard what the page now stores, after the
   * change has answered (a timer, under waitUntil) and at most once per
   * burst of changes: the one report measures whatever is committed by then.
   */
  reportFigures(db: PageDb): void {
    if (this.#figuresDue.has(db.key)) return;
    this.#figuresDue.add(db.key);
    const measure = () => {
      this.#figuresDue.delete(db.key);
      return pageFigures(db, db.key, Date.now());
    };
    this.ctx.waitUntil(new Promise((r) => setTimeout(r, 0)).then(() => reportFigures(this.env, db.key, measure)));
  }
}
