/**
 * Committing revisions, all or none (the write protocol in
 * durable-objects/page-store.md): validate the batch, compute the layout
 * change in memory, record the new blobs as pending and write them to KV,
 * then name them in one transaction with the revisions and the purge.
 */
import { LIMITS } from "../limits.ts";
import { CONTENT_MODELS } from "../page/content-model.ts";
import { listPage } from "../page/directory.ts";
import type { PageRef } from "../page/page-ref.ts";
import { sha1Base36, sha256Hex } from "../lib/digests.ts";
import type { AppendResult, FieldDifference, StoreProblem, StoreRevision } from "../page/types.ts";
import { recordPurge } from "../purge/outbox.ts";
import type { BlobStore } from "../storage/blob-store.ts";
import { DEFAULT_LAYOUT, type LayoutParams } from "../storage/layout.ts";
import { LayoutWriter, type LayoutCommit } from "../storage/layout-writer.ts";
import { childrenBeforeParents, effectiveTimeOf, effectiveTimes } from "./effective-time.ts";
import type { MetaEntry } from "./meta-records.ts";
import { contentKey, KV, refusal, toMeta, type PageDb, type PageRow, type Revision } from "./rows.ts";

export type CommitResult = Omit<Extract<AppendResult, { ok: true }>, "purges"> | StoreProblem;

export interface CommitContext {
  env: Env;
  db: PageDb;
  blobs: BlobStore;
  /** Makes sure the alarm will collect blobs recorded as pending, should the commit never land. */
  scheduleCollection: () => Promise<void>;
  /** Test hook: runs between the blob writes and the commit. */
  beforeCommit?: () => void;
}

interface Fresh {
  rev: StoreRevision;
  bytes: Uint8Array;
  sha256: string;
  sha1: string;
  ts: number;
}

/**
 * What a re-sent revision (same id, same text) says differently from the stored one. A re-send
 * is idempotent only when it is the same revision: anything else would be answered `existing`
 * while the archive kept the old metadata. Tags are a set; a format left out is the model's.
 */
function metadataDifferences(row: Revision, sent: StoreRevision): FieldDifference[] {
  const stored = toMeta(row);
  const differences: FieldDifference[] = [];
  const compare = (
    field: FieldDifference["field"],
    was: FieldDifference["stored"],
    now: FieldDifference["sent"],
    same = was === now,
  ) => {
    if (!same) differences.push({ field, stored: was, sent: now });
  };
  compare("parentId", stored.parentId, sent.parentId);
  compare("timestamp", stored.timestamp, sent.timestamp, row.ts === Math.floor(Date.parse(sent.timestamp) / 1000));
  compare("contributor", stored.contributor, sent.contributor);
  compare("comment", stored.comment, sent.comment);
  compare("model", stored.model, sent.model);
  compare("format", stored.format, sent.format ?? CONTENT_MODELS[sent.model].format);
  const tags = [...new Set(sent.tags ?? [])].sort();
  const storedTags = [...new Set(stored.tags)].sort();
  compare(
    "tags",
    stored.tags,
    sent.tags ?? [],
    tags.length === storedTags.length && tags.every((t, i) => t === storedTags[i]),
  );
  return differences;
}

/** Splits the batch into revisions already stored (same content) and new ones that extend the chain; refuses anything else. */
async function checkBatch(
  db: PageDb,
  latest: Revision | null,
  revisions: StoreRevision[],
): Promise<{ fresh: Fresh[]; existing: number[] } | StoreProblem> {
  let expectedParent: number | null = latest?.rev_id ?? null;
  const fresh: Fresh[] = [];
  const existing: number[] = [];
  const batchIds = new Set<number>();
  for (const rev of revisions) {
    if (batchIds.has(rev.id))
      return refusal(422, "duplicate_revision_id", `revision ${rev.id} appears twice in this request`, {
        revisionId: rev.id,
      });
    batchIds.add(rev.id);
    const bytes = rev.text;
    if (bytes.byteLength > LIMITS.page.maxRevisionBytes) {
      return refusal(
        413,
        "revision_too_large",
        `revision ${rev.id} is ${bytes.byteLength} bytes; page.maxRevisionBytes is ${LIMITS.page.maxRevisionBytes}`,
        { revisionId: rev.id },
      );
    }
    const sha256 = await sha256Hex(bytes);
    const stored = db.revisionById(rev.id);
    if (stored) {
      if (stored.sha256 !== sha256) {
        return refusal(409, "revision_id_reused", `revision ${rev.id} already exists with different content`, {
          revisionId: rev.id,
          latestId: latest?.rev_id ?? null,
        });
      }
      if (rev.sha1 && rev.sha1 !== stored.sha1) {
        return refusal(
          422,
          "sha1_mismatch",
          `revision ${rev.id}: the given SHA-1 ${rev.sha1} does not match its text (${stored.sha1})`,
          { revisionId: rev.id },
        );
      }
      const differences = metadataDifferences(stored, rev);
      if (differences.length > 0) {
        const each = differences
          .map((d) => `${d.field} ${JSON.stringify(d.stored)} stored, ${JSON.stringify(d.sent)} sent`)
          .join("; ");
        return refusal(
          409,
          "revision_metadata_conflict",
          `revision ${rev.id} already exists with the same text but other metadata: ${each}`,
          {
            revisionId: rev.id,
            latestId: latest?.rev_id ?? null,
            differences,
          },
        );
      }
      existing.push(rev.id);
      continue;
    }
    const retired = db.sql.exec<{ h: number }>("SELECT h FROM retired WHERE rev_id = ?", rev.id).toArray()[0];
    if (retired && retired.h !== contentKey(sha256)) {
      return refusal(
        409,
        "revision_id_retired",
        `revision ${rev.id} belonged to a deleted version of this page with other content; its URL may not serve different bytes, so give it a new id`,
        {
          revisionId: rev.id,
        },
      );
    }
    if (rev.parentId !== expectedParent) {
      const detail = `revision ${rev.id} names parent ${rev.parentId ?? "none"}, but the page's latest revision is ${expectedParent ?? "none"}`;
      return refusal(409, "parent_mismatch", detail, { revisionId: rev.id, latestId: latest?.rev_id ?? null });
    }
    const sha1 = await sha1Base36(bytes);
    if (rev.sha1 && rev.sha1 !== sha1) {
      return refusal(
        422,
        "sha1_mismatch",
        `revision ${rev.id}: the given SHA-1 ${rev.sha1} does not match its text (${sha1})`,
        { revisionId: rev.id },
      );
    }
    fresh.push({ rev, bytes, sha256, sha1, ts: Math.floor(Date.parse(rev.timestamp) / 1000) });
    expectedParent = rev.id;
  }
  return { fresh, existing };
}

/** Identical contents are stored once: maps each fresh revision to an existing or new content index. */
function assignContents(
  db: PageDb,
  fresh: Fresh[],
  contentCount: number,
): { contentOf: number[]; newContents: Uint8Array[] } {
  const known = new Map<string, number>();
  const newContents: Uint8Array[] = [];
  const contentOf: number[] = [];
  for (const f of fresh) {
    let u = known.get(f.sha256) ?? db.withContent(f.sha256).next().value?.u;
    if (u === undefined) {
      u = contentCount + newContents.length;
      newContents.push(f.bytes);
    }
    known.set(f.sha256, u);
    contentOf.push(u);
  }
  return { contentOf, newContents };
}

/** Records blobs as pending before writing them, so a crash leaves them collectable. */
async function writeBlobs(ctx: CommitContext, commit: LayoutCommit): Promise<void> {
  const now = Date.now();
  ctx.db.transaction(() => {
    for (const [key, bytes] of commit.blobs) {
      ctx.db.sql.exec(
        "INSERT INTO blobs (key, bytes, state, since) VALUES (?, ?, 'pending', ?) ON CONFLICT (key) DO UPDATE SET state = CASE WHEN state = 'live' THEN 'live' ELSE 'pending' END, since = excluded.since",
        key,
        bytes.byteLength,
        now,
      );
    }
  });
  await ctx.scheduleCollection();
  await Promise.all([...commit.blobs.values()].map((bytes) => ctx.blobs.put(bytes)));
}

function insertRevisions(
  db: PageDb,
  fresh: Fresh[],
  contentOf: number[],
  effective: number[],
  firstSeq: number,
): number {
  let seq = firstSeq;
  const entries: MetaEntry[] = fresh.map((f, i) => {
    seq++;
    const r = f.rev;
    db.sql.exec(
      "INSERT INTO revs (seq, rev_id, ts, u, h, eff_ts) VALUES (?, ?, ?, ?, ?, ?)",
      seq,
      r.id,
      f.ts,
      contentOf[i]!,
      contentKey(f.sha256),
      effective[i]!,
    );
    return {
      parentId: r.parentId,
      contributor: r.contributor,
      comment: r.comment,
      model: r.model,
      format: r.format ?? CONTENT_MODELS[r.model].format,
      bytes: f.bytes.byteLength,
      sha1: f.sha1,
      sha256: f.sha256,
      tags: r.tags ?? [],
    };
  });
  db.appendMeta(firstSeq + 1, entries);
  return seq;
}

function recordLayout(db: PageDb, commit: LayoutCommit, now: number): void {
  for (const g of commit.closedGroups) db.kvPut(KV.group(g.group), g.blob);
  for (const u of commit.removedTails) db.sql.exec("DELETE FROM kv WHERE k = ?", KV.tail(u));
  for (const t of commit.newTails) db.kvPut(KV.tail(t.u), t.blob);
  for (const key of commit.blobs.keys())
    db.sql.exec("UPDATE blobs SET state = 'live', since = ? WHERE key = ?", now, key);
  for (const key of commit.deadBlobs) {
    if (!commit.blobs.has(key)) db.sql.exec("UPDATE blobs SET state = 'dead', since = ? WHERE key = ?", now, key);
  }
}

/** A deleted page's title can be written again, as a new page. */
function currentPage(db: PageDb): PageRow | null {
  const page = db.page();
  if (page?.deleted_at == null) return page;
  db.sql.exec("DELETE FROM page");
  return null;
}

export async function commitRevisions(
  ctx: CommitContext,
  ref: PageRef,
  revisions: StoreRevision[],
  region: string,
): Promise<CommitResult> {
  const { db } = ctx;
  const page = currentPage(db);
  const latest = page ? db.latestRow(page) : null;
  const checked = await checkBatch(db, latest, revisions);
  if ("ok" in checked) return checked;
  const { fresh, existing } = checked;
  const latestId = fresh.at(-1)?.rev.id ?? latest?.rev_id ?? null;
  if (fresh.length === 0)
    return { ok: true, created: [], existing, latestId, storedBytes: 0, version: db.version(), warnings: [] };
  // A child dated before its parent is kept as dated, and exists for time travel only from its effective time.
  const effective = effectiveTimes(
    effectiveTimeOf(db, page?.latest_seq ?? null),
    fresh.map((f) => f.ts),
  );
  const warnings = childrenBeforeParents(
    latest && { id: latest.rev_id, timestamp: toMeta(latest).timestamp, ts: latest.ts },
    fresh.map((f, i) => ({ ...f, effectiveTs: effective[i]! })),
  );

  const params: LayoutParams = page ? (JSON.parse(page.layout) as LayoutParams) : DEFAULT_LAYOUT;
  const contentCount = page?.content_count ?? 0;
  const { contentOf, newContents } = assignContents(db, fresh, contentCount);
  const tails = new Map(db.kvRange(KV.tails).map((r) => [Number(r.k.slice(KV.tails[0].length)), String(r.v)] as const));
  const writer = new LayoutWriter(ctx.blobs, params, { contentCount, anchorsBlob: page?.anchors_blob ?? null, tails });
  await writer.append(newContents);
  const commit = await writer.finish();

  await writeBlobs(ctx, commit);
  // Listed before the commit: a page that exists is always in the directory.
  if (!page) await listPage(ctx.env, ref.key);
  ctx.beforeCommit?.();

  const now = Date.now();
  db.transaction(() => {
    if (!page)
      db.sql.exec(
        "INSERT INTO page (id, title, content_count, layout) VALUES (1, ?, 0, ?)",
        ref.title,
        JSON.stringify(params),
      );
    const seq = insertRevisions(db, fresh, contentOf, effective, page?.latest_seq ?? 0);
    recordLayout(db, commit, now);
    const rawBytes = fresh.reduce((n, f) => n + f.bytes.byteLength, 0);
    db.sql.exec(
      "UPDATE page SET title = ?, latest_seq = ?, content_count = ?, anchors_blob = ?, raw_bytes = raw_bytes + ? WHERE id = 1",
      ref.title,
      seq,
      contentCount + newContents.length,
      commit.anchorsBlob,
      rawBytes,
    );
    recordPurge(db.sql, { page: ref.key, scope: { kind: "mutable" }, version: db.bumpVersion(), region }, now);
  });
  const storedBytes = [...commit.blobs.values()].reduce((n, b) => n + b.byteLength, 0);
  return {
    ok: true,
    created: fresh.map((f) => f.rev.id),
    existing,
    latestId,
    storedBytes,
    version: db.version(),
    warnings,
  };
}
