/**
 * The order a PageStore's changes run in, and what follows each: writes,
 * removals and collection run one at a time (reads never wait); a change's
 * purges go from the outbox to the queues before it answers; the alarm is
 * set for whichever comes first, a purge to retry or a blob to collect; and
 * the page's directory shard hears what the page now stores.
 *
 * @example
 * const changes = new PageChanges(ctx, env, db);
 * return changes.serialized(() => changes.issued(deletePage(db, ref, region)));
 */
import { settingsOf } from "../config/settings.ts";
import { reportFigures } from "../page/directory.ts";
import type { StoreProblem } from "../page/types.ts";
import { drainOutbox, outboxDueAt } from "../purge/outbox.ts";
import { collectionDueAt } from "./collection.ts";
import { pageFigures } from "./history.ts";
import type { PageDb } from "./rows.ts";

/** A change's answer: what it did, the page's version after it, and the purges it issued. */
export type Changed<T> = (T & { ok: true; purges: string[]; version: number }) | StoreProblem;

export class PageChanges {
  #queue: Promise<unknown> = Promise.resolve();
  #figuresDue = false;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
    private readonly db: PageDb,
  ) {}

  /**
   * Runs `job` after every write, removal and collection before it. Writes
   * must see each other's effects, and collection must never decide a blob
   * is dead while a write is about to name it again.
   */
  serialized<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(job);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Sets the alarm for whichever comes first: a purge to retry or a blob to collect. */
  async scheduleAlarm(): Promise<void> {
    const due = [outboxDueAt(this.db.sql), collectionDueAt(this.db, settingsOf(this.env).orphanGraceMs)].filter(
      (t): t is number => t !== null,
    );
    if (due.length === 0) return;
    const at = Math.min(...due);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /** Hands the outbox to the purge queues and answers with the change's purge ids. */
  async issued<T extends { ok: true }>(result: T | StoreProblem): Promise<Changed<T>> {
    if (!result.ok) return result;
    const purges = await drainOutbox(this.env, this.db.sql);
    await this.scheduleAlarm();
    return { ...result, purges, version: this.db.version() };
  }

  /**
   * Tells the page's directory shard what the page now stores, after the
   * change has answered (a timer, under waitUntil) and at most once per
   * burst of changes: the one report measures whatever is committed by then.
   */
  /** Reports the figures before the change answers: a deletion or restore must reach the listings it changes. */
  async reportFiguresNow(key: string): Promise<void> {
    await reportFigures(this.env, key, () => pageFigures(this.db, key, Date.now()));
  }

  reportFigures(key: string): void {
    if (this.#figuresDue) return;
    this.#figuresDue = true;
    const measure = () => {
      this.#figuresDue = false;
      return pageFigures(this.db, key, Date.now());
    };
    this.ctx.waitUntil(new Promise((r) => setTimeout(r, 0)).then(() => reportFigures(this.env, key, measure)));
  }
}
