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
import { contentKey, HIDDEN, KV, refusal, toMeta, type PageDb, type PageRow, type Revision } from "./rows.ts";
import type { PageScope } from "../purge/events.ts";

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
  /** Empty when the text is missing (`rev.textMissing`): nothing is stored for it. */
  sha256: string;
  sha1: string;
  ts: number;
}

/**
 * A re-sent revision that fills in what the archive never held of it: its text (stored without it,
 * hidden before the archive first read it), or a comment or contributor stored empty because hidden.
 */
interface Fill {
  row: Revision;
  rev: StoreRevision;
  /** Set when the text is filled in. */
  text?: { bytes: Uint8Array; sha256: string; sha1: string };
  comment?: string;
  contributor?: string;
}

/** The `revs.hidden` bits a new revision is stored with. */
function hiddenBits(rev: StoreRevision): number {
  return (
    (rev.hidden?.comment ? HIDDEN.comment : 0) |
    (rev.hidden?.contributor ? HIDDEN.contributor : 0) |
    (rev.textMissing ? HIDDEN.textMissing : 0)
  );
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
  // A field one side had hidden and empty is not a difference: the other side knows more (a fill, or a
  // reader who may not see it).
  const unknown = (field: "comment" | "contributor", storedHidden: boolean | undefined) =>
    (storedHidden && stored[field] === "") || (sent.hidden?.[field] === true && sent[field] === "");
  if (!unknown("contributor", stored.contributorHidden)) compare("contributor", stored.contributor, sent.contributor);
  if (!unknown("comment", stored.commentHidden)) compare("comment", stored.comment, sent.comment);
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

/**
 * Splits the batch into revisions already stored (same content) and new ones that extend the chain; refuses anything
 * else.
 */
async function checkBatch(
  db: PageDb,
  latest: Revision | null,
  revisions: StoreRevision[],
): Promise<{ fresh: Fresh[]; existing: number[]; fills: Fill[] } | StoreProblem> {
  let expectedParent: number | null = latest?.rev_id ?? null;
  const fresh: Fresh[] = [];
  const existing: number[] = [];
  const fills: Fill[] = [];
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
    if (rev.textMissing && (bytes.byteLength > 0 || rev.hidden?.content !== true))
      return refusal(
        422,
        "text_missing_not_hidden",
        `revision ${rev.id} is sent without its text (textMissing), so its text must be empty and hidden.content true`,
        { revisionId: rev.id },
      );
    const sha256 = rev.textMissing ? "" : await sha256Hex(bytes);
    const stored = db.revisionById(rev.id);
    if (stored) {
      const fill = await fillOf(stored, rev, bytes, sha256);
      if (fill && "ok" in fill) return fill;
      if (fill) {
        fills.push(fill);
        continue;
      }
    }
    if (stored && (rev.textMissing || stored.hidden & HIDDEN.textMissing)) {
      // One side never had the text: the ids and metadata say whether it is the same revision.
      const differences = metadataDifferences(stored, rev);
      if (differences.length > 0) return metadataConflict(rev, latest, differences);
      existing.push(rev.id);
      continue;
    }
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
      if (differences.length > 0) return metadataConflict(rev, latest, differences);
      existing.push(rev.id);
      continue;
    }
    const retired = db.kvGet(KV.retired(rev.id));
    if (retired !== undefined && Number(retired) !== (rev.textMissing ? 0 : contentKey(sha256))) {
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
    // A missing text keeps the SHA-1 its wiki gave, if any: nothing here can check it.
    const sha1 = rev.textMissing ? (rev.sha1 ?? "") : await sha1Base36(bytes);
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
  return { fresh, existing, fills };
}

function metadataConflict(rev: StoreRevision, latest: Revision | null, differences: FieldDifference[]): StoreProblem {
  const each = differences
    .map((d) => `${d.field} ${JSON.stringify(d.stored)} stored, ${JSON.stringify(d.sent)} sent`)
    .join("; ");
  return refusal(
    409,
    "revision_metadata_conflict",
    `revision ${rev.id} already exists with the same text but other metadata: ${each}`,
    { revisionId: rev.id, latestId: latest?.rev_id ?? null, differences },
  );
}

/** What a re-sent revision fills in of a stored one (see Fill), null if nothing, or why it may not. */
async function fillOf(
  stored: Revision,
  rev: StoreRevision,
  bytes: Uint8Array,
  sha256: string,
): Promise<Fill | StoreProblem | null> {
  const fill: Fill = { row: stored, rev };
  if (stored.hidden & HIDDEN.textMissing && !rev.textMissing) {
    const sha1 = await sha1Base36(bytes);
    if ((stored.sha1 !== "" && stored.sha1 !== sha1) || (rev.sha1 && rev.sha1 !== sha1))
      return refusal(
        422,
        "sha1_mismatch",
        `revision ${rev.id}: the text sent to fill it in does not match the SHA-1 its wiki gave (${stored.sha1 || rev.sha1})`,
        { revisionId: rev.id },
      );
    fill.text = { bytes, sha256, sha1 };
  }
  if (stored.hidden & HIDDEN.comment && stored.comment === "" && rev.comment !== "") fill.comment = rev.comment;
  if (stored.hidden & HIDDEN.contributor && stored.contributor === "" && rev.contributor !== "")
    fill.contributor = rev.contributor;
  if (!fill.text && fill.comment === undefined && fill.contributor === undefined) return null;
  const differences = metadataDifferences(stored, rev).filter(
    (d) =>
      !(d.field === "comment" && fill.comment !== undefined) &&
      !(d.field === "contributor" && fill.contributor !== undefined),
  );
  if (differences.length > 0) return metadataConflict(rev, null, differences);
  return fill;
}

/** The content index of a revision whose text the archive never held. */
const NO_CONTENT = -1;

/**
 * Identical contents are stored once: maps each fresh revision (a text-missing one to NO_CONTENT) to an existing or new
 * content index.
 */
function assignContents(
  db: PageDb,
  fresh: Fresh[],
  contentCount: number,
): { contentOf: number[]; newContents: Uint8Array[] } {
  const known = new Map<string, number>();
  const newContents: Uint8Array[] = [];
  const contentOf: number[] = [];
  for (const f of fresh) {
    if (f.rev.textMissing) {
      contentOf.push(NO_CONTENT);
      continue;
    }
    let u = known.get(f.sha256) ?? storedContentOf(db, f.sha256);
    if (u === undefined) {
      u = contentCount + newContents.length;
      newContents.push(f.bytes);
    }
    known.set(f.sha256, u);
    contentOf.push(u);
  }
  return { contentOf, newContents };
}

/** The content number of a stored revision with this body, if there is one. */
function storedContentOf(db: PageDb, sha256: string): number | undefined {
  for (const revision of db.withContent(sha256)) return revision.u;
  return undefined;
}

/** A blob key kept in the page's kv (a group's or a tail's): always written as text. */
function blobKeyOf(value: SqlStorageValue): string {
  if (typeof value !== "string") throw new Error(`a kv blob key of type ${typeof value}`);
  return value;
}

/** Records blobs as pending before writing them, so a crash leaves them collectable. */
async function writeBlobs(ctx: CommitContext, commit: LayoutCommit): Promise<void> {
  const now = Date.now();
  ctx.db.transaction(() => {
    for (const [key, bytes] of commit.blobs) {
      ctx.db.sql.exec(
        "INSERT INTO blobs (pg, key, bytes, state, since) VALUES (?, ?, ?, 'pending', ?) ON CONFLICT (pg, key) DO UPDATE SET state = CASE WHEN state = 'live' THEN 'live' ELSE 'pending' END, since = excluded.since",
        ctx.db.pg,
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
      "INSERT INTO revs (pg, seq, rev_id, ts, u, h, eff_ts, suppressed, hidden) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      db.pg,
      seq,
      r.id,
      f.ts,
      contentOf[i]!,
      r.textMissing ? 0 : contentKey(f.sha256),
      effective[i]!,
      r.hidden?.content ? 1 : 0,
      hiddenBits(r),
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

/** Fills in what re-sent revisions bring (see Fill); returns the visible text bytes it adds. Inside the commit. */
function applyFills(db: PageDb, fills: Fill[], textFills: Fill[], contentOf: number[]): number {
  let added = 0;
  for (const fill of fills) {
    const { row, rev } = fill;
    const t = textFills.indexOf(fill);
    const entry: Partial<MetaEntry> = {};
    if (fill.comment !== undefined) entry.comment = fill.comment;
    if (fill.contributor !== undefined) entry.contributor = fill.contributor;
    // A field filled in is hidden as the sender says: its wiki shows it again, or a backup restores it hidden.
    let keep = ~0;
    let add = 0;
    for (const field of ["comment", "contributor"] as const) {
      if (fill[field] === undefined) continue;
      keep &= ~HIDDEN[field];
      if (rev.hidden?.[field]) add |= HIDDEN[field];
    }
    if (keep !== ~0)
      db.sql.exec("UPDATE revs SET hidden = (hidden & ?) | ? WHERE pg = ? AND seq = ?", keep, add, db.pg, row.seq);
    if (t >= 0) {
      const text = fill.text!;
      entry.bytes = text.bytes.byteLength;
      entry.sha1 = text.sha1;
      entry.sha256 = text.sha256;
      // Shown as the sender shows it: hidden still, or visible now that its wiki shows it again.
      const suppressed = rev.hidden?.content ? 1 : 0;
      db.sql.exec(
        "UPDATE revs SET u = ?, h = ?, suppressed = ?, hidden = hidden & ? WHERE pg = ? AND seq = ?",
        contentOf[t]!,
        contentKey(text.sha256),
        suppressed,
        ~HIDDEN.textMissing,
        db.pg,
        row.seq,
      );
      if (!suppressed) added += text.bytes.byteLength;
    }
    db.updateMeta(row.seq, entry);
  }
  return added;
}

function recordLayout(db: PageDb, commit: LayoutCommit, now: number): void {
  for (const g of commit.closedGroups) db.kvPut(KV.group(g.group), g.blob);
  for (const u of commit.removedTails) db.kvDelete(KV.tail(u));
  for (const t of commit.newTails) db.kvPut(KV.tail(t.u), t.blob);
  for (const key of commit.blobs.keys())
    db.sql.exec("UPDATE blobs SET state = 'live', since = ? WHERE pg = ? AND key = ?", now, db.pg, key);
  for (const key of commit.deadBlobs) {
    if (!commit.blobs.has(key))
      db.sql.exec("UPDATE blobs SET state = 'dead', since = ? WHERE pg = ? AND key = ?", now, db.pg, key);
  }
}

/** A deleted page's title can be written again, as a new page (keeping its pg, its version and its retired ids). */
function currentPage(db: PageDb): PageRow | null {
  const page = db.page();
  if (page?.deleted_at == null) return page;
  db.sql.exec(
    "UPDATE pages SET layout = NULL, latest_seq = NULL, content_count = 0, anchors_blob = NULL, deleted_at = NULL, raw_bytes = 0 WHERE pg = ?",
    db.pg,
  );
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
  const { fresh, existing, fills } = checked;
  const latestId = fresh.at(-1)?.rev.id ?? latest?.rev_id ?? null;
  const filled = fills.map((f) => f.rev.id);
  if (fresh.length === 0 && fills.length === 0)
    return { ok: true, created: [], existing, filled, latestId, storedBytes: 0, version: db.version(), warnings: [] };
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
  // A filled-in text is a content like a new revision's, after theirs.
  const textFills = fills.filter((f) => f.text);
  const fillContents = assignContents(
    db,
    textFills.map((f) => ({ rev: f.rev, bytes: f.text!.bytes, sha256: f.text!.sha256, sha1: f.text!.sha1, ts: 0 })),
    contentCount + newContents.length,
  );
  newContents.push(...fillContents.newContents);
  const tails = new Map(
    db.kvRange(KV.tails).map((r) => [Number(r.k.slice(KV.tails[0].length)), blobKeyOf(r.v)] as const),
  );
  const groupBlob = (g: number) => {
    const key = db.kvGet(KV.group(g));
    return key === undefined ? undefined : blobKeyOf(key);
  };
  const writer = new LayoutWriter(ctx.blobs, params, {
    contentCount,
    anchorsBlob: page?.anchors_blob ?? null,
    tails,
    groupBlob,
  });
  await writer.append(newContents);
  const commit = await writer.finish();

  await writeBlobs(ctx, commit);
  // Listed before the commit: a page that exists is always in the directory.
  if (!page) await listPage(ctx.env, ref.key);
  ctx.beforeCommit?.();

  const now = Date.now();
  db.transaction(() => {
    if (!page)
      db.sql.exec("UPDATE pages SET content_count = 0, layout = ? WHERE pg = ?", JSON.stringify(params), db.pg);
    const seq = insertRevisions(db, fresh, contentOf, effective, page?.latest_seq ?? 0);
    const filledBytes = applyFills(db, fills, textFills, fillContents.contentOf);
    recordLayout(db, commit, now);
    // The page's raw bytes count visible contents only (src/page-store/removal.ts).
    const rawBytes = fresh.reduce((n, f) => n + (f.rev.hidden?.content ? 0 : f.bytes.byteLength), filledBytes);
    db.sql.exec(
      "UPDATE pages SET title = ?, latest_seq = ?, content_count = ?, anchors_blob = ?, raw_bytes = raw_bytes + ? WHERE pg = ?",
      ref.title,
      seq,
      contentCount + newContents.length,
      commit.anchorsBlob,
      rawBytes,
      db.pg,
    );
    db.countRevisions(fresh.length);
    if (ref.wikiPageId !== undefined) db.kvPut(KV.wikiPageId, ref.wikiPageId);
    const scope: PageScope = fills.length > 0 ? { kind: "revisions", revisions: filled } : { kind: "mutable" };
    recordPurge(db, { page: ref.key, scope, version: db.bumpVersion(), region }, now);
  });
  const storedBytes = [...commit.blobs.values()].reduce((n, b) => n + b.byteLength, 0);
  return {
    ok: true,
    created: fresh.map((f) => f.rev.id),
    existing,
    filled,
    latestId,
    storedBytes,
    version: db.version(),
    warnings,
  };
}
