/**
 * PageStore: one shard of the archive's pages (src/bindings.ts `shardOf`),
 * the source of truth for their revisions. Metadata lives in the shard's
 * SQLite, every row led by its page's `pg`; content lives in immutable
 * blobs in KV, in a key space of each page's own, written before the single
 * transaction that names them, so a reader sees the old manifest or the new
 * one and nothing between.
 *
 * The RPC surface is per page: `page(key)` answers a {@link PageHandle}
 * (an RpcTarget) with the page's methods, and a caller's first call on it
 * travels with the `page` call (promise pipelining), so a page costs one
 * round trip as it did when it had a Durable Object of its own. Each page
 * has its own serial queue (its writes, removals and collection run one at
 * a time; other pages of the shard do not wait; reads never wait). Each job
 * is its own module in src/page-store/ (the database: schema.ts, rows.ts;
 * the queues and what follows a change: changes.ts); the tables are
 * described in page-store.md.
 *
 * @example
 * const page = pageStoreOf(env, "BIP_0340"); // the shard's page("BIP_0340"), in one round trip
 * await page.append({ title: "BIP 0340", key: "BIP_0340" }, [{ id: 1, parentId: null, ... }], "weur");
 * const found = await page.locate({ kind: "latest" });
 */
import { DurableObject, RpcTarget } from "cloudflare:workers";
import { dictionaryInWindow } from "../src/page-store/dictionary-window.ts";
import { settingsOf } from "../src/config/settings.ts";
import { topologyOf } from "../src/config/topology.ts";
import { PageChanges, type Changed } from "../src/page-store/changes.ts";
import { blobsAwaiting, collectBlobs } from "../src/page-store/collection.ts";
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
import { PageDb, SHARD_KV, SHARD_PG } from "../src/page-store/rows.ts";
import { openShardSchema } from "../src/page-store/schema.ts";
import type { LazySchema } from "../src/storage/migrations.ts";
import type { PageRef } from "../src/page/page-ref.ts";
import type {
  AppendResult,
  HiddenFields,
  HistoryPage,
  ListedRevision,
  LocateResult,
  PageStats,
  RevisionSelector,
  ShardStorage,
  StoreProblem,
  StoreRevision,
} from "../src/page/types.ts";
import { drainOutbox, pagesWithPurges } from "../src/purge/outbox.ts";
import { BlobStore, pageBlobOwner } from "../src/storage/blob-store.ts";

/** Test hook: lets a test fail a write between the blob writes and the commit. */
export interface PageStoreFaults {
  beforeCommit?: () => void;
}

/** What a shard refuses to answer under when its deployment's shard count is not the one it was created under. */
export const shardCountChanged = (recorded: number, now: number) =>
  `this PageStore shard was created with PAGE_STORE_SHARDS = ${recorded}, and the deployment now says ${now}: pages would be looked for in other shards than the ones holding them. Set PAGE_STORE_SHARDS back to ${recorded} ([vars] in wrangler.toml, or --var for palimpsest dev); to change the count, export the archive (palimpsest export with a backup token) and import it into a deployment created with the new count`;

export class PageStore extends DurableObject<Env> {
  readonly #shard: Shard;
  faults: PageStoreFaults = {};

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#shard = new Shard(ctx, env, () => this.faults);
  }

  /** The handle of page `key`, which this shard holds (or will, on its first write). */
  page(key: string): PageHandle {
    this.#shard.checkShardCount();
    return new PageHandle(this.#shard, key);
  }

  /** What the whole shard stores: its SQLite and its live blobs, for `GET /api/storage`. */
  storage(): ShardStorage {
    this.#shard.checkShardCount();
    return this.#shard.storage();
  }

  /**
   * Retries outbox purges, and collects blobs that are dead, or pending from a commit that never landed, once past the
   * grace period: each page's in its queue.
   */
  override async alarm(): Promise<void> {
    await this.#shard.alarm();
  }
}

/** The shard's state, as the page handles share it (never reachable over RPC). */
class Shard {
  readonly #schema: LazySchema;
  readonly changes: PageChanges;
  #countChecked = false;

  constructor(
    private readonly ctx: DurableObjectState,
    readonly env: Env,
    readonly faults: () => PageStoreFaults,
  ) {
    this.#schema = openShardSchema(ctx.storage);
    this.changes = new PageChanges(ctx, env);
  }

  /** Page `key`'s view of the database, as it is now (reads; and writes, from inside the page's queue). */
  view(key: string): PageDb {
    return PageDb.open(this.ctx.storage, key, this.#schema.exists());
  }

  /**
   * Page `key`'s view, with its pg taken if it had none: the schema is made on the shard's first write. Inside the
   * page's queue.
   */
  writable(ref: PageRef): PageDb {
    this.#schema.create();
    this.ctx.storage.sql.exec(
      "INSERT OR IGNORE INTO kv (pg, k, v) VALUES (?, ?, ?)",
      SHARD_PG,
      SHARD_KV.shards,
      settingsOf(this.env).pageStoreShards,
    );
    const db = this.view(ref.key);
    db.claim(ref.title);
    return db;
  }

  /** The page's blobs, in its own key space. */
  blobsOf(db: PageDb): BlobStore {
    return new BlobStore(this.env.BLOBS, pageBlobOwner(this.ctx.id.toString(), db.pg));
  }

  storage(): ShardStorage {
    const sql = this.ctx.storage.sql;
    const shards = settingsOf(this.env).pageStoreShards;
    // A shard never written to stores nothing (the runtime's own empty database is not the archive's).
    if (!this.#schema.exists()) return { shards, databaseBytes: 0, pages: 0, revisions: 0, blobs: 0, blobBytes: 0 };
    const blobs = sql
      .exec<{
        n: number;
        bytes: number | null;
      }>("SELECT count(*) AS n, sum(bytes) AS bytes FROM blobs WHERE state = 'live'")
      .one();
    return {
      shards,
      databaseBytes: sql.databaseSize,
      pages: sql
        .exec<{ n: number }>("SELECT count(*) AS n FROM pages WHERE layout IS NOT NULL AND deleted_at IS NULL")
        .one().n,
      revisions: Number(this.#shardValue(SHARD_KV.revisions) ?? 0),
      blobs: blobs.n,
      blobBytes: blobs.bytes ?? 0,
    };
  }

  async alarm(): Promise<void> {
    if (!this.#schema.exists()) return;
    const sql = this.ctx.storage.sql;
    const graceMs = settingsOf(this.env).orphanGraceMs;
    for (const key of pagesWithPurges(sql))
      await this.changes.serialized(key, () => drainOutbox(this.env, this.view(key)));
    const { duePages, nextDueAt } = blobsAwaiting(sql, graceMs);
    for (const key of duePages)
      await this.changes.serialized(key, () => {
        const db = this.view(key);
        return collectBlobs(db, this.blobsOf(db), graceMs);
      });
    await this.changes.scheduleAlarm(nextDueAt);
  }

  /**
   * Refuses every call, naming the fix, if the deployment's shard count is not the one this shard was created under.
   */
  checkShardCount(): void {
    if (this.#countChecked || !this.#schema.exists()) return;
    const recorded = this.#shardValue(SHARD_KV.shards);
    const now = settingsOf(this.env).pageStoreShards;
    if (recorded !== undefined && Number(recorded) !== now) throw new Error(shardCountChanged(Number(recorded), now));
    this.#countChecked = true;
  }

  #shardValue(k: string): SqlStorageValue | undefined {
    return this.ctx.storage.sql
      .exec<{ v: SqlStorageValue }>("SELECT v FROM kv WHERE pg = ? AND k = ?", SHARD_PG, k)
      .toArray()[0]?.v;
  }
}

/**
 * One page of a shard, as callers see it: the methods a page had when it
 * had a Durable Object of its own. Changes run in the page's queue; reads
 * read the page's rows as they are.
 */
export class PageHandle extends RpcTarget {
  readonly #shard: Shard;
  readonly #key: string;

  constructor(shard: Shard, key: string) {
    super();
    this.#shard = shard;
    this.#key = key;
  }

  /** Appends revisions, all or none. Texts arrive as UTF-8, the size they have on the wire. */
  append(ref: PageRef, revisions: StoreRevision[], region?: string): Promise<AppendResult> {
    const shard = this.#shard;
    const changes = shard.changes;
    return this.#change(async () => {
      const db = shard.writable(ref);
      const context = {
        env: shard.env,
        db,
        blobs: shard.blobsOf(db),
        scheduleCollection: () => changes.scheduleAlarm(changes.collectionDue()),
        beforeCommit: shard.faults().beforeCommit,
      };
      const result = await commitRevisions(context, ref, revisions, region ?? this.#upper());
      if (result.ok && result.created.length === 0) return { ...result, purges: [] };
      if (result.ok) changes.reportFigures(db);
      // A commit supersedes blobs (tails folded into a group, an anchors blob rewritten).
      return changes.issued(db, result, true);
    });
  }

  /** Hides (or shows again) a revision's content, comment or contributor (src/page-store/removal.ts). */
  setHidden(
    ref: PageRef,
    revisionId: number,
    change: HiddenFields,
    region?: string,
  ): Promise<Changed<{ revision: ListedRevision }>> {
    const changes = this.#shard.changes;
    return this.#change(async () => {
      const db = this.#shard.view(this.#key);
      const result = setRevisionHidden(db, ref, revisionId, change, region ?? this.#upper());
      // Its raw bytes leave (or rejoin) the page's figures.
      if (result.ok) changes.reportFigures(db);
      return changes.issued(db, result);
    });
  }

  /** Deletes the page as MediaWiki deletes (restorable: nothing public, everything kept), or restores it. */
  setPageHidden(
    ref: PageRef,
    hidden: boolean,
    region?: string,
  ): Promise<Changed<{ revisions: number; deleted: boolean }>> {
    const changes = this.#shard.changes;
    return this.#change(async () => {
      const db = this.#shard.view(this.#key);
      const result = setPageHidden(db, ref, hidden, region ?? this.#upper());
      // Out of (or back in) the listings and search before the answer.
      if (result.ok) await changes.reportFiguresNow(db);
      return changes.issued(db, result);
    });
  }

  /** Deletes the page for good: its metadata goes now, its blobs after the grace period. */
  deletePage(ref: PageRef, region?: string): Promise<Changed<{ revisions: number }>> {
    const changes = this.#shard.changes;
    return this.#change(async () => {
      const db = this.#shard.view(this.#key);
      const result = deletePage(db, ref, region ?? this.#upper());
      if (result.ok) await changes.reportFiguresNow(db);
      return changes.issued(db, result, true);
    });
  }

  /**
   * Where a revision lives; `queryMs`, the shard's own time on it, lets the caller tell the object's start and the RPC
   * apart (Server-Timing `do`).
   */
  async locate(selector: RevisionSelector): Promise<LocateResult & { queryMs?: number }> {
    const start = performance.now();
    const found = await this.#read((db) => locateRevision(db, selector));
    return found.ok ? { ...found, queryMs: performance.now() - start } : found;
  }

  history(cursor: { before?: number; after?: number }, limit: number): Promise<HistoryPage | StoreProblem> {
    return this.#read((db) => historyPage(db, cursor, limit));
  }

  /**
   * The latest revision's place and the newest `limit` revisions' listing, read from the page's rows
   * at once (one version): what the origin makes the latest answer and the page's memento index from
   * in one render (src/origin/latest-and-index.ts).
   */
  latestWithHistory(limit: number): Promise<{ latest: LocateResult; history: HistoryPage | StoreProblem }> {
    return this.#read((db) => ({
      latest: locateRevision(db, { kind: "latest" }),
      history: historyPage(db, {}, limit),
    }));
  }

  /**
   * A memento's neighbours in time, by revision id or as the revision current at a time (src/page-store/mementos.ts).
   */
  memento(which: { id: number } | { at: number }): Promise<(MementoInfo & { version: number }) | StoreProblem> {
    return this.#read((db) => mementoInfo(db, which));
  }

  /** One TimeMap page, oldest first. */
  timemap(cursor: TimemapCursor, limit: number): Promise<(TimemapPage & { version: number }) | StoreProblem> {
    return this.#read((db) => timemapPage(db, cursor, limit));
  }

  /**
   * Years with edits, the latest visible revision, and revision `id`'s place in the history
   * (src/page-store/timeline.ts).
   */
  timeline(id?: number): Promise<(PageTimeline & { version: number }) | StoreProblem> {
    return this.#read((db) => pageTimeline(db, id));
  }

  exportRevisions(query: ExportQuery): Promise<ExportAnswer> {
    return this.#read((db) => exportRevisions(db, query));
  }

  stats(): PageStats {
    return pageStats(this.#view());
  }

  /**
   * The unsuppressed revision with this body SHA-256 (hex), if a dcb answer for `targetId` may use it
   * (src/page-store/dictionary-window.ts).
   */
  dictionaryFor(sha256: string, targetId: number): number | null {
    return dictionaryInWindow(this.#view(), sha256, targetId);
  }

  /** Runs a read on the page's rows as they are (a page the shard does not hold reads as empty). */
  #read<T>(run: (db: PageDb) => T): Promise<T> {
    return Promise.resolve(run(this.#view()));
  }

  #view(): PageDb {
    return this.#shard.view(this.#key);
  }

  #change<T>(job: () => Promise<T>): Promise<T> {
    return this.#shard.changes.serialized(this.#key, job);
  }

  #upper(): string {
    return topologyOf(this.#shard.env).upperRegion;
  }
}
