/**
 * PageStore: one Durable Object per page, the source of truth for its
 * revisions. Metadata lives in SQLite; content lives in immutable blobs in
 * KV, written before the single transaction that names them, so a reader
 * sees the old manifest or the new one and nothing between.
 *
 * This class is the RPC surface and the serial queue (writes, removals and
 * collection run one at a time; reads never wait). Each job is its own
 * module in src/page-store/ (the database: schema.ts, rows.ts; the queue
 * and what follows a change: changes.ts); the tables are described in page-store.md.
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
import { PageChanges, type Changed } from "../src/page-store/changes.ts";
import { collectBlobs } from "../src/page-store/collection.ts";
import { commitRevisions } from "../src/page-store/commit.ts";
import type { ExportAnswer, ExportQuery } from "../src/page/export-types.ts";
import { exportRevisions } from "../src/page-store/export.ts";
import { historyPage, pageStats } from "../src/page-store/history.ts";
import { locateRevision } from "../src/page-store/locate.ts";
import { mementoInfo, timemapPage } from "../src/page-store/mementos.ts";
import { pageTimeline } from "../src/page-store/timeline.ts";
import type { PageTimeline } from "../src/page/timeline.ts";
import type { MementoInfo, TimemapCursor, TimemapPage } from "../src/memento/types.ts";
import { deletePage, setPageHidden, setRevisionHidden } from "../src/page-store/removal.ts";
import type { PageDb } from "../src/page-store/rows.ts";
import { openPageDb } from "../src/page-store/schema.ts";
import type { PageRef } from "../src/page/page-ref.ts";
import type {
  AppendResult,
  HiddenFields,
  HistoryPage,
  ListedRevision,
  LocateResult,
  PageStats,
  RevisionSelector,
  StoreProblem,
  StoreRevision,
} from "../src/page/types.ts";
import { drainOutbox } from "../src/purge/outbox.ts";
import { BlobStore } from "../src/storage/blob-store.ts";

/** Test hook: lets a test fail a write between the blob writes and the commit. */
export interface PageStoreFaults {
  beforeCommit?: () => void;
}

export class PageStore extends DurableObject<Env> {
  readonly #db: PageDb;
  readonly #blobs: BlobStore;
  readonly #changes: PageChanges;
  faults: PageStoreFaults = {};

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#db = openPageDb(ctx.storage);
    // Blob keys live under this object's id: see page-store.md, "Collection".
    this.#blobs = new BlobStore(env.BLOBS, ctx.id.toString());
    this.#changes = new PageChanges(ctx, env, this.#db);
  }

  /** Appends revisions, all or none. Texts arrive as UTF-8, the size they have on the wire. */
  append(ref: PageRef, revisions: StoreRevision[], region = topologyOf(this.env).upperRegion): Promise<AppendResult> {
    return this.#changes.serialized(async () => {
      const context = {
        env: this.env,
        db: this.#db,
        blobs: this.#blobs,
        scheduleCollection: () => this.#changes.scheduleAlarm(),
        beforeCommit: this.faults.beforeCommit,
      };
      const result = await commitRevisions(context, ref, revisions, region);
      if (result.ok && result.created.length === 0) return { ...result, purges: [] };
      if (result.ok) this.#changes.reportFigures(ref.key);
      return this.#changes.issued(result);
    });
  }

  /** Hides (or shows again) a revision's content, comment or contributor (src/page-store/removal.ts). */
  setHidden(
    ref: PageRef,
    revisionId: number,
    change: HiddenFields,
    region = topologyOf(this.env).upperRegion,
  ): Promise<Changed<{ revision: ListedRevision }>> {
    return this.#changes.serialized(() => {
      const result = setRevisionHidden(this.#db, ref, revisionId, change, region);
      // Its raw bytes leave (or rejoin) the page's figures.
      if (result.ok) this.#changes.reportFigures(ref.key);
      return this.#changes.issued(result);
    });
  }

  /** Deletes the page as MediaWiki deletes (restorable: nothing public, everything kept), or restores it. */
  setPageHidden(
    ref: PageRef,
    hidden: boolean,
    region = topologyOf(this.env).upperRegion,
  ): Promise<Changed<{ revisions: number; deleted: boolean }>> {
    return this.#changes.serialized(async () => {
      const result = setPageHidden(this.#db, ref, hidden, region);
      // Out of (or back in) the listings and search before the answer.
      if (result.ok) await this.#changes.reportFiguresNow(ref.key);
      return this.#changes.issued(result);
    });
  }

  /** Deletes the page for good: its metadata goes now, its blobs after the grace period. */
  deletePage(ref: PageRef, region = topologyOf(this.env).upperRegion): Promise<Changed<{ revisions: number }>> {
    return this.#changes.serialized(async () => {
      const result = deletePage(this.#db, ref, region);
      if (result.ok) await this.#changes.reportFiguresNow(ref.key);
      return this.#changes.issued(result);
    });
  }

  /** Retries outbox purges, and collects blobs that are dead, or pending from a commit that never landed, once past the grace period. */
  override async alarm(): Promise<void> {
    await drainOutbox(this.env, this.#db.sql);
    await this.#changes.serialized(() => collectBlobs(this.#db, this.#blobs, settingsOf(this.env).orphanGraceMs));
    await this.#changes.scheduleAlarm();
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

  /** Years with edits, the latest visible revision, and revision `id`'s place in the history (src/page-store/timeline.ts). */
  timeline(id?: number): (PageTimeline & { version: number }) | StoreProblem {
    return pageTimeline(this.#db, id);
  }

  exportRevisions(query: ExportQuery): ExportAnswer {
    return exportRevisions(this.#db, query);
  }

  stats(): PageStats {
    return pageStats(this.#db);
  }

  /** The unsuppressed revision with this body SHA-256 (hex), if a dcb answer for `targetId` may use it (src/page-store/dictionary-window.ts). */
  dictionaryFor(sha256: string, targetId: number): number | null {
    return dictionaryInWindow(this.#db, sha256, targetId);
  }
}
