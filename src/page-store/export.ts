/**
 * What a MediaWiki export of a page (src/origin/export.ts) reads from its
 * PageStore: first a plan (which revisions one answer covers, in history
 * order, within its count and byte bounds, and where the next answer
 * starts), then those revisions in batches, each with its metadata and
 * where its content is stored. A suppressed revision comes with its
 * content's location and hashes only when the caller may read them (a
 * `backup` token); otherwise as the history lists it, with nothing its
 * content determines.
 *
 * Selections are contiguous runs of the history: a time offset starts at the
 * revision whose effective time (src/page-store/effective-time.ts) passes
 * it, so a revision dated before its parent is never cut off from it, and
 * the cursors `a<seq>` (after) and `b<seq>` (before) are the history's own.
 *
 * @example
 * const plan = exportRevisions(db, {
 *   kind: "plan", start: { after: 0 }, dir: "asc", limit: 1000, maxBytes: 1 << 28, withSuppressed: false,
 * });
 */
import type {
  ExportAnswer,
  ExportBatch,
  ExportDirection,
  ExportPlan,
  ExportQuery,
  ExportStart,
  ExportedRevision,
} from "../page/export-types.ts";
import type { ListedRevision } from "../page/types.ts";
import { contentLocation } from "./locate.ts";
import { HIDDEN, publicMeta, isRefused, publicPage, toListed, toMeta, KV, type PageDb, type PageRow } from "./rows.ts";

export function exportRevisions(db: PageDb, query: ExportQuery): ExportAnswer {
  // A backup-scope export holds a page deleted as MediaWiki deletes, marked so (src/origin/export-xml.ts).
  const page = publicPage(db, query.withSuppressed);
  if (isRefused(page)) return page;
  return query.kind === "plan" ? plan(db, page, query) : batch(db, page, query);
}

/** The exclusive seq bound a start names, in the direction asked. */
function boundary(db: PageDb, start: ExportStart | null, dir: ExportDirection): number {
  if (start === null) return dir === "asc" ? 0 : Number.MAX_SAFE_INTEGER;
  if ("after" in start) return start.after;
  if ("before" in start) return start.before;
  // Effective times never decrease along the history, so "after t" and "before t" are each one contiguous run.
  const first = db.sql
    .exec<{ seq: number | null }>(
      `SELECT min(seq) AS seq FROM revs WHERE pg = ? AND eff_ts ${dir === "asc" ? ">" : ">="} ?`,
      db.pg,
      start.time,
    )
    .one().seq;
  if (dir === "asc") return first === null ? Number.MAX_SAFE_INTEGER : first - 1;
  return first ?? Number.MAX_SAFE_INTEGER;
}

function plan(db: PageDb, page: PageRow, q: Extract<ExportQuery, { kind: "plan" }>): ExportPlan {
  const bound = boundary(db, q.start, q.dir);
  const rows =
    q.dir === "asc"
      ? db.rows("AND seq > ? ORDER BY seq ASC LIMIT ?", bound, q.limit + 1)
      : db.rows("AND seq < ? ORDER BY seq DESC LIMIT ?", bound, q.limit + 1);
  const within = rows.slice(0, q.limit);
  let count = 0;
  let textBytes = 0;
  // Metadata is read a block at a time, so the sizes are read in one pass over the selection.
  for (const rev of db.withMeta(within)) {
    const bytes = (rev.suppressed && !q.withSuppressed) || rev.hidden & HIDDEN.textMissing ? 0 : rev.bytes;
    // At least one revision, so a revision over the byte bound still has an answer of its own.
    if (count > 0 && textBytes + bytes > q.maxBytes) break;
    count++;
    textBytes += bytes;
  }
  const last = within[count - 1];
  const more = rows.length > count;
  return {
    title: page.title,
    ...(db.kvGet(KV.hidden) !== undefined ? { deleted: true } : {}),
    wikiPageId: typeof db.kvGet(KV.wikiPageId) === "number" ? Number(db.kvGet(KV.wikiPageId)) : null,
    range: last ? { from: within[0]!.seq, to: last.seq } : null,
    count,
    textBytes,
    next: last && more ? `${q.dir === "asc" ? "a" : "b"}${last.seq}` : null,
  };
}

function batch(db: PageDb, page: PageRow, q: Extract<ExportQuery, { kind: "batch" }>): ExportBatch {
  const rows =
    q.from <= q.to
      ? db.rows("AND seq BETWEEN ? AND ? ORDER BY seq ASC LIMIT ?", q.from, q.to, q.limit)
      : db.rows("AND seq BETWEEN ? AND ? ORDER BY seq DESC LIMIT ?", q.to, q.from, q.limit);
  const revisions = db.withMeta(rows).map((rev): ExportedRevision => {
    if (rev.suppressed && !q.withSuppressed)
      return { revision: toListed(rev) as Extract<ListedRevision, { suppressed: true }>, location: null };
    // A backup holds hidden comments and contributors; a text the archive never held has no location.
    if (rev.hidden & HIDDEN.textMissing) return { revision: toMeta(rev), location: null };
    const meta = q.withSuppressed ? toMeta(rev) : publicMeta(toMeta(rev));
    return { revision: meta, location: contentLocation(db, page, rev) };
  });
  return { revisions, lastSeq: rows[rows.length - 1]?.seq ?? null };
}
