/**
 * PageStore: one Durable Object per normalised page title, the source of
 * truth for its revisions. Metadata lives in SQLite; content lives in
 * immutable blobs in KV, written before the single transaction that names
 * them, so a reader sees the old manifest or the new one and nothing between.
 * Writes are serialised per page; reads never wait for them.
 *
 * @example
 * const store = env.PAGE_STORE.getByName("BIP_0340");
 * await store.append("BIP 0340", [{ id: 1, parentId: null, ... }]);
 * const found = await store.locate({ kind: "latest" });
 */
import { DurableObject } from "cloudflare:workers";
import { settingsOf } from "../src/config/settings.ts";
import { LIMITS } from "../src/limits.ts";
import { directoryFor } from "../src/page/directory.ts";
import { CONTENT_MODELS } from "../src/page/content-model.ts";
import { fromHex, sha1Base36, sha256Hex, toHex } from "../src/page/sha1.ts";
import type { AppendResult, HistoryPage, LocateResult, PageStats, RevisionMeta, RevisionSelector, StoreProblem, StoreRevision } from "../src/page/types.ts";
import { BlobStore } from "../src/storage/blob-store.ts";
import { DEFAULT_LAYOUT, anchorId, groupId, placementOf, tailId, type LayoutParams } from "../src/storage/layout.ts";
import { LayoutWriter, type LayoutCommit } from "../src/storage/layout-writer.ts";
import type { PurgeRequest, PurgeScope } from "../src/purge/events.ts";
import { purgeQueueFor } from "../src/purge/queue-pick.ts";
import { backoffMs } from "../src/retry/backoff.ts";
import { topologyOf } from "../src/config/topology.ts";
import { PAGE_STORE_SCHEMA } from "./page-store-schema.ts";

interface PageRow {
  title: string;
  latest_seq: number | null;
  content_count: number;
  anchors_blob: string | null;
  layout: string;
  deleted_at: number | null;
  [key: string]: SqlStorageValue;
}

interface RevisionRow {
  seq: number;
  rev_id: number;
  parent_id: number | null;
  ts: number;
  contributor: string;
  comment: string;
  model: string;
  format: string;
  bytes: number;
  sha1: string;
  /** 32 raw bytes: half the size of hex, in the row and in its index. */
  sha256: ArrayBuffer;
  u: number;
  suppressed: number;
  [key: string]: SqlStorageValue;
}

const problem = (status: StoreProblem["status"], code: string, detail: string, extra: Partial<StoreProblem> = {}): StoreProblem => ({
  ok: false,
  status,
  code,
  detail,
  ...extra,
});

function toMeta(r: RevisionRow): RevisionMeta {
  return {
    id: r.rev_id,
    parentId: r.parent_id,
    timestamp: new Date(r.ts * 1000).toISOString().replace(".000Z", "Z"),
    contributor: r.contributor,
    comment: r.comment,
    model: r.model,
    format: r.format,
    bytes: r.bytes,
    sha1: r.sha1,
    sha256: toHex(new Uint8Array(r.sha256)),
    suppressed: r.suppressed !== 0,
  };
}

/** Test hook: lets a test fail a write between the blob writes and the commit. */
export interface PageStoreFaults {
  beforeCommit?: () => void;
}

export class PageStore extends DurableObject<Env> {
  readonly #sql: SqlStorage;
  readonly #blobs: BlobStore;
  #writeQueue: Promise<unknown> = Promise.resolve();
  faults: PageStoreFaults = {};
  layoutOverride: LayoutParams | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    // Blob keys live under this object's id: see page-store.md, "Collection".
    this.#blobs = new BlobStore(env.BLOBS, ctx.id.toString());
    this.#sql.exec(PAGE_STORE_SCHEMA);
  }

  #page(): PageRow | null {
    return this.#sql.exec<PageRow>("SELECT * FROM page WHERE id = 1").toArray()[0] ?? null;
  }

  #latestRow(page: PageRow): RevisionRow | null {
    if (page.latest_seq === null) return null;
    return this.#sql.exec<RevisionRow>("SELECT * FROM revisions WHERE seq = ?", page.latest_seq).toArray()[0] ?? null;
  }

  /**
   * Runs `job` after every write, deletion and collection before it. Writes
   * must see each other's effects, and collection must never decide a blob
   * is dead while a write is about to name it again.
   */
  #serialized<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#writeQueue.then(job);
    this.#writeQueue = run.catch(() => undefined);
    return run;
  }

  /** Appends revisions, all or none. Texts arrive as UTF-8, the size they have on the wire. */
  append(title: string, revisions: StoreRevision[], region = topologyOf(this.env).upperRegion): Promise<AppendResult> {
    return this.#serialized(() => this.#append(title, revisions, region));
  }

  async #append(title: string, revisions: StoreRevision[], region: string): Promise<AppendResult> {
    let page = this.#page();
    if (page?.deleted_at != null) {
      this.#sql.exec("DELETE FROM page");
      page = null;
    }
    const latest = page ? this.#latestRow(page) : null;
    let expectedParent: number | null = latest?.rev_id ?? null;
    const fresh: Array<{ rev: StoreRevision; bytes: Uint8Array; sha256: string; sha1: string; ts: number }> = [];
    const existing: number[] = [];
    const batchIds = new Set<number>();

    for (const rev of revisions) {
      if (batchIds.has(rev.id)) return problem(422, "duplicate_revision_id", `revision ${rev.id} appears twice in this request`, { revisionId: rev.id });
      batchIds.add(rev.id);
      const bytes = rev.text;
      if (bytes.byteLength > LIMITS.page.maxRevisionBytes) {
        return problem(413, "revision_too_large", `revision ${rev.id} is ${bytes.byteLength} bytes; page.maxRevisionBytes is ${LIMITS.page.maxRevisionBytes}`, { revisionId: rev.id });
      }
      const sha256 = await sha256Hex(bytes);
      const stored = this.#sql.exec<RevisionRow>("SELECT * FROM revisions WHERE rev_id = ?", rev.id).toArray()[0];
      if (stored) {
        if (toHex(new Uint8Array(stored.sha256)) !== sha256) {
          return problem(409, "revision_id_reused", `revision ${rev.id} already exists with different content`, { revisionId: rev.id, latestId: latest?.rev_id ?? null });
        }
        existing.push(rev.id);
        continue;
      }
      if (rev.parentId !== expectedParent) {
        return problem(
          409,
          "parent_mismatch",
          `revision ${rev.id} names parent ${rev.parentId ?? "none"}, but the page's latest revision is ${expectedParent ?? "none"}`,
          { revisionId: rev.id, latestId: latest?.rev_id ?? null },
        );
      }
      const sha1 = await sha1Base36(bytes);
      if (rev.sha1 && rev.sha1 !== sha1) {
        return problem(422, "sha1_mismatch", `revision ${rev.id}: the given SHA-1 ${rev.sha1} does not match its text (${sha1})`, { revisionId: rev.id });
      }
      fresh.push({ rev, bytes, sha256, sha1, ts: Math.floor(Date.parse(rev.timestamp) / 1000) });
      expectedParent = rev.id;
    }
    if (fresh.length === 0) return { ok: true, created: [], existing, latestId: latest?.rev_id ?? null, storedBytes: 0, version: this.#version(), purges: [] };

    const params: LayoutParams = page ? (JSON.parse(page.layout) as LayoutParams) : (this.layoutOverride ?? DEFAULT_LAYOUT);
    const contentCount = page?.content_count ?? 0;
    // Identical contents are stored once: map each to an existing or new content index.
    const known = new Map<string, number>();
    const newContents: Uint8Array[] = [];
    const contentOf: number[] = [];
    for (const f of fresh) {
      let u = known.get(f.sha256) ?? this.#sql.exec<{ u: number }>("SELECT u FROM revisions WHERE sha256 = ? LIMIT 1", fromHex(f.sha256)).toArray()[0]?.u;
      if (u === undefined) {
        u = contentCount + newContents.length;
        newContents.push(f.bytes);
      }
      known.set(f.sha256, u);
      contentOf.push(u);
    }

    const tails = new Map(this.#sql.exec<{ u: number; blob: string }>("SELECT u, blob FROM tails").toArray().map((r) => [r.u, r.blob] as const));
    const writer = new LayoutWriter(this.#blobs, params, { contentCount, anchorsBlob: page?.anchors_blob ?? null, tails });
    await writer.append(newContents);
    const commit = await writer.finish();

    await this.#writeBlobs(commit);
    // Listed before the commit: a page that exists is always in the directory.
    if (!page) await directoryFor(this.env, title.replace(/ /g, "_")).add(title.replace(/ /g, "_"));
    this.faults.beforeCommit?.();

    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      if (!page) this.#sql.exec("INSERT INTO page (id, title, content_count, layout) VALUES (1, ?, 0, ?)", title, JSON.stringify(params));
      let seq = page?.latest_seq ?? 0;
      fresh.forEach((f, i) => {
        seq++;
        const r = f.rev;
        this.#sql.exec(
          "INSERT INTO revisions (seq, rev_id, parent_id, ts, contributor, comment, model, format, bytes, sha1, sha256, u) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          seq, r.id, r.parentId, f.ts, r.contributor, r.comment, r.model, r.format ?? CONTENT_MODELS[r.model].format, f.bytes.byteLength, f.sha1, fromHex(f.sha256), contentOf[i]!,
        );
      });
      for (const g of commit.closedGroups) this.#sql.exec("INSERT OR REPLACE INTO groups (k, blob) VALUES (?, ?)", g.group, g.blob);
      for (const u of commit.removedTails) this.#sql.exec("DELETE FROM tails WHERE u = ?", u);
      for (const t of commit.newTails) this.#sql.exec("INSERT OR REPLACE INTO tails (u, blob) VALUES (?, ?)", t.u, t.blob);
      for (const key of commit.blobs.keys()) this.#sql.exec("UPDATE blobs SET state = 'live', since = ? WHERE key = ?", now, key);
      for (const key of commit.deadBlobs) {
        if (!commit.blobs.has(key)) this.#sql.exec("UPDATE blobs SET state = 'dead', since = ? WHERE key = ?", now, key);
      }
      this.#sql.exec(
        "UPDATE page SET title = ?, latest_seq = ?, content_count = ?, anchors_blob = ? WHERE id = 1",
        title, seq, contentCount + newContents.length, commit.anchorsBlob,
      );
      this.#enqueuePurge(title, { kind: "mutable" }, region, now);
    });
    await this.#scheduleCollection();
    const purges = await this.#drainOutbox();
    const storedBytes = [...commit.blobs.values()].reduce((n, b) => n + b.byteLength, 0);
    return { ok: true, created: fresh.map((f) => f.rev.id), existing, latestId: expectedParent, storedBytes, version: this.#version(), purges };
  }

  /** Records blobs as pending before writing them, so a crash leaves them collectable. */
  async #writeBlobs(commit: LayoutCommit): Promise<void> {
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      for (const [key, bytes] of commit.blobs) {
        this.#sql.exec(
          "INSERT INTO blobs (key, bytes, state, since) VALUES (?, ?, 'pending', ?) ON CONFLICT (key) DO UPDATE SET state = CASE WHEN state = 'live' THEN 'live' ELSE 'pending' END, since = excluded.since",
          key, bytes.byteLength, now,
        );
      }
    });
    await this.#scheduleCollection();
    await Promise.all([...commit.blobs.values()].map((bytes) => this.#blobs.put(bytes)));
  }

  #scheduleCollection(): Promise<void> {
    return this.#scheduleAlarm();
  }

  /** Retries outbox purges, and collects blobs that are dead, or pending from a commit that never landed, once past the grace period. */
  override async alarm(): Promise<void> {
    await this.#drainOutbox();
    await this.#serialized(() => this.#collect());
  }

  async #collect(): Promise<void> {
    const cutoff = Date.now() - settingsOf(this.env).orphanGraceMs;
    const doomed = this.#sql.exec<{ key: string }>("SELECT key FROM blobs WHERE state != 'live' AND since <= ?", cutoff).toArray();
    for (const { key } of doomed) {
      await this.#blobs.delete(key);
      this.#sql.exec("DELETE FROM blobs WHERE key = ? AND state != 'live'", key);
    }
    await this.#scheduleAlarm();
  }

  /** The page's version: bumped by every write, suppression and deletion, never reset. */
  #version(): number {
    return this.#sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = 'version'").toArray()[0]?.value ?? 0;
  }

  /** Bumps the version and records the purge in the outbox; call inside the write's transaction. */
  #enqueuePurge(title: string, scope: PurgeScope, region: string, now: number): void {
    const version = this.#sql
      .exec<{ value: number }>("INSERT INTO counters (name, value) VALUES ('version', 1) ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value")
      .one().value;
    const request: PurgeRequest = { page: title.replace(/ /g, "_"), scope, version, region };
    this.#sql.exec("INSERT INTO outbox (request, next_at) VALUES (?, ?)", JSON.stringify(request), now);
  }

  /** Hands outbox purges to their PurgeQueue; what fails stays for the alarm to retry with backoff. */
  async #drainOutbox(): Promise<string[]> {
    const ids: string[] = [];
    const rows = this.#sql.exec<{ id: number; request: string; attempts: number }>("SELECT id, request, attempts FROM outbox ORDER BY id").toArray();
    for (const row of rows) {
      const request = JSON.parse(row.request) as PurgeRequest;
      try {
        const queue = purgeQueueFor(this.env, request.region, request.page ?? "");
        const { id } = await queue.stub.enqueue(request, queue.self);
        this.#sql.exec("DELETE FROM outbox WHERE id = ?", row.id);
        ids.push(id);
      } catch (err) {
        console.error("purge enqueue failed; will retry", request.page, err);
        const delay = backoffMs(row.attempts, LIMITS.purge.retryBaseMs, LIMITS.purge.retryMaxMs);
        this.#sql.exec("UPDATE outbox SET attempts = attempts + 1, next_at = ? WHERE id = ?", Date.now() + delay, row.id);
        break;
      }
    }
    await this.#scheduleAlarm();
    return ids;
  }

  async #scheduleAlarm(): Promise<void> {
    const outbox = this.#sql.exec<{ next: number | null }>("SELECT min(next_at) AS next FROM outbox").one().next;
    const blobs = this.#sql.exec<{ next: number | null }>("SELECT min(since) AS next FROM blobs WHERE state != 'live'").one().next;
    const due = [outbox, blobs === null ? null : blobs + settingsOf(this.env).orphanGraceMs].filter((t): t is number => t !== null);
    if (due.length === 0) return;
    const at = Math.min(...due);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  locate(selector: RevisionSelector): LocateResult {
    const page = this.#page();
    if (!page) return problem(404, "page_not_found", "no such page in the archive");
    if (page.deleted_at != null) return problem(410, "page_deleted", `the page ${page.title} was deleted`);
    let row: RevisionRow | undefined;
    if (selector.kind === "latest") row = this.#latestRow(page) ?? undefined;
    else if (selector.kind === "id") row = this.#sql.exec<RevisionRow>("SELECT * FROM revisions WHERE rev_id = ?", selector.id).toArray()[0];
    else row = this.#sql.exec<RevisionRow>("SELECT * FROM revisions WHERE ts <= ? ORDER BY ts DESC, seq DESC LIMIT 1", selector.epochSeconds).toArray()[0];
    if (!row) {
      const what = selector.kind === "id" ? `revision ${selector.id}` : selector.kind === "at" ? "a revision at or before that time" : "any revision";
      return problem(404, "revision_not_found", `${page.title} has no ${what}`, { latestId: this.#latestRow(page)?.rev_id ?? null });
    }
    const revision = toMeta(row);
    if (row.suppressed) return problem(410, "revision_suppressed", `revision ${row.rev_id} of ${page.title} is suppressed`, { revisionId: row.rev_id });
    const params = JSON.parse(page.layout) as LayoutParams;
    const place = placementOf(row.u, page.content_count, params.groupSize);
    const anchorsBlob = page.anchors_blob!;
    const location =
      place.kind === "anchor"
        ? { record: anchorId(place.anchor), blob: anchorsBlob, part: 0 }
        : place.kind === "group"
          ? { record: groupId(place.group), blob: this.#sql.exec<{ blob: string }>("SELECT blob FROM groups WHERE k = ?", place.group).one().blob, part: place.index }
          : { record: tailId(row.u), blob: this.#sql.exec<{ blob: string }>("SELECT blob FROM tails WHERE u = ?", row.u).one().blob, part: 0 };
    return { ok: true, title: page.title, revision, location: { ...location, anchorsBlob, sha256: revision.sha256 }, version: this.#version() };
  }

  history(cursor: { before?: number; after?: number }, limit: number): HistoryPage | StoreProblem {
    const page = this.#page();
    if (!page) return problem(404, "page_not_found", "no such page in the archive");
    if (page.deleted_at != null) return problem(410, "page_deleted", `the page ${page.title} was deleted`);
    let rows: RevisionRow[];
    if (cursor.after !== undefined) {
      rows = this.#sql.exec<RevisionRow>("SELECT * FROM revisions WHERE seq > ? ORDER BY seq ASC LIMIT ?", cursor.after, limit).toArray().reverse();
    } else {
      rows = this.#sql.exec<RevisionRow>("SELECT * FROM revisions WHERE seq < ? ORDER BY seq DESC LIMIT ?", cursor.before ?? Number.MAX_SAFE_INTEGER, limit).toArray();
    }
    const first = rows[0]?.seq;
    const last = rows[rows.length - 1]?.seq;
    const exists = (sql: string, seq: number | undefined) => seq !== undefined && this.#sql.exec(sql, seq).toArray().length > 0;
    return {
      title: page.title,
      revisions: rows.map(toMeta),
      older: exists("SELECT 1 FROM revisions WHERE seq < ? LIMIT 1", last) ? `b${last}` : null,
      newer: exists("SELECT 1 FROM revisions WHERE seq > ? LIMIT 1", first) ? `a${first}` : null,
      total: this.#sql.exec<{ n: number }>("SELECT count(*) AS n FROM revisions").one().n,
      version: this.#version(),
    };
  }

  /** Hides (or restores) a revision's content; its metadata stays listed. */
  async setSuppressed(revisionId: number, suppressed: boolean, region = topologyOf(this.env).upperRegion): Promise<{ ok: true; revision: RevisionMeta; purges: string[]; version: number } | StoreProblem> {
    const page = this.#page();
    if (!page || page.deleted_at != null) return problem(404, "page_not_found", "no such page in the archive");
    const row = this.ctx.storage.transactionSync(() => {
      const updated = this.#sql.exec<RevisionRow>("UPDATE revisions SET suppressed = ? WHERE rev_id = ? RETURNING *", suppressed ? 1 : 0, revisionId).toArray()[0];
      if (updated) this.#enqueuePurge(page.title, { kind: "revisions", revisions: [revisionId] }, region, Date.now());
      return updated;
    });
    if (!row) return problem(404, "revision_not_found", `${page.title} has no revision ${revisionId}`);
    return { ok: true, revision: toMeta(row), purges: await this.#drainOutbox(), version: this.#version() };
  }

  /** Deletes the page: its metadata goes now, its blobs after the grace period. */
  deletePage(region = topologyOf(this.env).upperRegion): Promise<{ ok: true; revisions: number; purges: string[]; version: number } | StoreProblem> {
    return this.#serialized(async () => {
      const page = this.#page();
      if (!page || page.deleted_at != null) return problem(404, "page_not_found", "no such page in the archive");
      const now = Date.now();
      const revisions = this.#sql.exec<{ n: number }>("SELECT count(*) AS n FROM revisions").one().n;
      this.ctx.storage.transactionSync(() => {
        this.#sql.exec("UPDATE blobs SET state = 'dead', since = ? WHERE state = 'live'", now);
        for (const table of ["revisions", "groups", "tails"]) this.#sql.exec(`DELETE FROM ${table}`);
        this.#sql.exec("UPDATE page SET deleted_at = ?, latest_seq = NULL, content_count = 0, anchors_blob = NULL WHERE id = 1", now);
        this.#enqueuePurge(page.title, { kind: "page" }, region, now);
      });
      await this.#scheduleCollection();
      return { ok: true as const, revisions, purges: await this.#drainOutbox(), version: this.#version() };
    });
  }

  stats(): PageStats {
    const page = this.#page();
    const one = (sql: string) => this.#sql.exec<{ n: number | null }>(sql).one().n ?? 0;
    return {
      title: page?.title ?? null,
      revisions: one("SELECT count(*) AS n FROM revisions"),
      contents: page?.content_count ?? 0,
      rawBytes: one("SELECT sum(bytes) AS n FROM revisions"),
      blobs: one("SELECT count(*) AS n FROM blobs WHERE state = 'live'"),
      blobBytes: one("SELECT sum(bytes) AS n FROM blobs WHERE state = 'live'"),
      metadataBytes: this.ctx.storage.sql.databaseSize,
      layout: page ? JSON.parse(page.layout) : null,
    };
  }
}
