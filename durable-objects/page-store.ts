/**
 * PageStore: one Durable Object per page, the source of truth for its
 * revisions. Metadata lives in SQLite; content lives in immutable blobs in
 * KV, written before the single transaction that names them, so a reader
 * sees the old manifest or the new one and nothing between. Writes,
 * removals and collection run one at a time; reads never wait for them.
 *
 * This class is the RPC surface and the serial queue. Each job is its own
 * module in src/page-store/ (commit, locate, history, removal, collection)
 * and src/purge/outbox.ts; the tables are described in page-store.md.
 *
 * @example
 * const store = pageStoreOf(env, "BIP_0340");
 * await store.append({ title: "BIP 0340", key: "BIP_0340" }, [{ id: 1, parentId: null, ... }], "weur");
 * const found = await store.locate({ kind: "latest" });
 */
import { DurableObject } from "cloudflare:workers";
import { dictionaryInWindow } from "../src/page-store/dictionary-window.ts";
import { settingsOf } from "../src/config/settings.ts";
import { topologyOf } from "../src/config/topology.ts";
import { collectBlobs, collectionDueAt } from "../src/page-store/collection.ts";
import { commitRevisions } from "../src/page-store/commit.ts";
import { historyPage, pageStats } from "../src/page-store/history.ts";
import { locateRevision } from "../src/page-store/locate.ts";
import { mementoInfo, timemapPage } from "../src/page-store/mementos.ts";
import type { MementoInfo, TimemapCursor, TimemapPage } from "../src/memento/types.ts";
import { deletePage, suppressRevision } from "../src/page-store/removal.ts";
import { migrateFromV1 } from "../src/page-store/migrate-v1.ts";
import { migrateFromV2 } from "../src/page-store/migrate-v2.ts";
import { PageDb } from "../src/page-store/rows.ts";
import { reportFigures } from "../src/page/directory.ts";
import type { PageRef } from "../src/page/page-ref.ts";
import type { AppendResult, HistoryPage, ListedRevision, LocateResult, PageStats, RevisionSelector, StoreProblem, StoreRevision } from "../src/page/types.ts";
import { drainOutbox, outboxDueAt } from "../src/purge/outbox.ts";
import { BlobStore } from "../src/storage/blob-store.ts";
import { PAGE_STORE_COLUMNS, PAGE_STORE_SCHEMA } from "./page-store-schema.ts";

/** Test hook: lets a test fail a write between the blob writes and the commit. */
export interface PageStoreFaults {
  beforeCommit?: () => void;
}

/** A change's answer: what it did, the page's version after it, and the purges it issued. */
type Changed<T> = (T & { ok: true; purges: string[]; version: number }) | StoreProblem;

export class PageStore extends DurableObject<Env> {
  readonly #db: PageDb;
  readonly #blobs: BlobStore;
  #queue: Promise<unknown> = Promise.resolve();
  #figuresDue = false;
  faults: PageStoreFaults = {};

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(PAGE_STORE_SCHEMA);
    for (const { table, column, add } of PAGE_STORE_COLUMNS) {
      if (ctx.storage.sql.exec("SELECT 1 FROM pragma_table_info(?) WHERE name = ?", table, column).toArray().length === 0) ctx.storage.sql.exec(add);
    }
    this.#db = new PageDb(ctx.storage);
    // A store written in format 1, then one in format 2, is converted once, before anything reads it.
    migrateFromV1(this.#db);
    migrateFromV2(this.#db);
    // Blob keys live under this object's id: see page-store.md, "Collection".
    this.#blobs = new BlobStore(env.BLOBS, ctx.id.toString());
  }

  /**
   * Runs `job` after every write, removal and collection before it. Writes
   * must see each other's effects, and collection must never decide a blob
   * is dead while a write is about to name it again.
   */
  #serialized<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(job);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #graceMs(): number {
    return settingsOf(this.env).orphanGraceMs;
  }

  /** Sets the alarm for whichever comes first: a purge to retry or a blob to collect. */
  async #scheduleAlarm(): Promise<void> {
    const due = [outboxDueAt(this.#db.sql), collectionDueAt(this.#db, this.#graceMs())].filter((t): t is number => t !== null);
    if (due.length === 0) return;
    const at = Math.min(...due);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /** Hands the outbox to the purge queues and answers with the change's purge ids. */
  async #issued<T extends { ok: true }>(result: T | StoreProblem): Promise<Changed<T>> {
    if (!result.ok) return result;
    const purges = await drainOutbox(this.env, this.#db.sql);
    await this.#scheduleAlarm();
    return { ...result, purges, version: this.#db.version() };
  }

  /**
   * Tells the page's directory shard what the page now stores, after the
   * change has answered (a timer, under waitUntil) and at most once per
   * burst of changes: the one report measures whatever is committed by then.
   */
  #reportFigures(key: string): void {
    if (this.#figuresDue) return;
    this.#figuresDue = true;
    const measure = () => {
      this.#figuresDue = false;
      const s = this.stats();
      const deleted = this.#db.livePage() === null;
      return { title: s.title ?? key, version: this.#db.version(), deleted, revisions: s.revisions, rawBytes: s.rawBytes, blobBytes: s.blobBytes, metadataBytes: s.metadataBytes, reportedAt: Date.now() };
    };
    this.ctx.waitUntil(new Promise((r) => setTimeout(r, 0)).then(() => reportFigures(this.env, key, measure)));
  }

  /** Appends revisions, all or none. Texts arrive as UTF-8, the size they have on the wire. */
  append(ref: PageRef, revisions: StoreRevision[], region = topologyOf(this.env).upperRegion): Promise<AppendResult> {
    return this.#serialized(async () => {
      const context = { env: this.env, db: this.#db, blobs: this.#blobs, scheduleCollection: () => this.#scheduleAlarm(), beforeCommit: this.faults.beforeCommit };
      const result = await commitRevisions(context, ref, revisions, region);
      if (result.ok && result.created.length === 0) return { ...result, purges: [] };
      if (result.ok) this.#reportFigures(ref.key);
      return this.#issued(result);
    });
  }

  /** Hides (or restores) a revision's content; its metadata stays listed. */
  setSuppressed(ref: PageRef, revisionId: number, suppressed: boolean, region = topologyOf(this.env).upperRegion): Promise<Changed<{ revision: ListedRevision }>> {
    return this.#serialized(() => {
      const result = suppressRevision(this.#db, ref, revisionId, suppressed, region);
      // Its raw bytes leave (or rejoin) the page's figures.
      if (result.ok) this.#reportFigures(ref.key);
      return this.#issued(result);
    });
  }

  /** Deletes the page: its metadata goes now, its blobs after the grace period. */
  deletePage(ref: PageRef, region = topologyOf(this.env).upperRegion): Promise<Changed<{ revisions: number }>> {
    return this.#serialized(() => {
      const result = deletePage(this.#db, ref, region);
      if (result.ok) this.#reportFigures(ref.key);
      return this.#issued(result);
    });
  }

  /** Retries outbox purges, and collects blobs that are dead, or pending from a commit that never landed, once past the grace period. */
  override async alarm(): Promise<void> {
    await drainOutbox(this.env, this.#db.sql);
    await this.#serialized(() => collectBlobs(this.#db, this.#blobs, this.#graceMs()));
    await this.#scheduleAlarm();
  }

  locate(selector: RevisionSelector): LocateResult {
    return locateRevision(this.#db, selector);
  }

  history(cursor: { before?: number; after?: number }, limit: number): HistoryPage | StoreProblem {
    return historyPage(this.#db, cursor, limit);
  }

  /** A memento's neighbours in time, by revision id or as the revision current at a time (src/page-store/mementos.ts). */
  memento(which: { id: number } | { at: number }): (MementoInfo & { version: number }) | StoreProblem {
    return mementoInfo(this.#db, which);
  }

  /** One TimeMap page, oldest first. */
  timemap(cursor: TimemapCursor, limit: number): (TimemapPage & { version: number }) | StoreProblem {
    return timemapPage(this.#db, cursor, limit);
  }

  stats(): PageStats {
    return pageStats(this.#db);
  }

  /**
   * The unsuppressed revision whose body has this SHA-256 (hex), if it is one a
   * dcb answer for `targetId` may be made against (src/page-store/dictionary-window.ts).
   */
  dictionaryFor(sha256: string, targetId: number): number | null {
    return dictionaryInWindow(this.#db, sha256, targetId);
  }
}
