/**
 * Listing: a page's revisions newest first, in cursor pages, and its storage
 * figures. A suppressed revision is listed without what its content
 * determines (size, hashes), and the revision after it names the nearest
 * earlier one whose content is visible, so "what changed" never points at a
 * 410.
 */
import type { PageFigures } from "../page/directory.ts";
import type { HistoryEntry, HistoryPage, PageStats, StoreProblem } from "../page/types.ts";
import type { LayoutParams } from "../storage/layout.ts";
import { KV, isRefused, publicPage, toListed, type PageDb, type PageRow, type RevRow } from "./rows.ts";

export function historyPage(
  db: PageDb,
  cursor: { before?: number; after?: number },
  limit: number,
): HistoryPage | StoreProblem {
  const page = publicPage(db);
  if (isRefused(page)) return page;
  const rows =
    cursor.after !== undefined
      ? db.rows("AND seq > ? ORDER BY seq ASC LIMIT ?", cursor.after, limit).reverse()
      : db.rows("AND seq < ? ORDER BY seq DESC LIMIT ?", cursor.before ?? Number.MAX_SAFE_INTEGER, limit);
  const first = rows[0]?.seq;
  const last = rows[rows.length - 1]?.seq;
  const exists = (more: string, seq: number | undefined) => seq !== undefined && db.hasRow(more, seq);
  return {
    title: page.title,
    revisions: withPreviousVisible(
      db,
      rows,
      db.withMeta(rows).map((r) => toListed(r)),
    ),
    older: exists("AND seq < ?", last) ? `b${last}` : null,
    newer: exists("AND seq > ?", first) ? `a${first}` : null,
    total: page.latest_seq ?? 0,
    version: db.version(),
  };
}

/**
 * Adds `previousVisibleId` to each entry whose parent is suppressed. The
 * history is linear (a revision's parent is the one before it, seq - 1), so
 * the listed rows, newest first, answer it themselves; below the oldest of
 * them, one step back along the primary key, past suppressed revisions only.
 */
function withPreviousVisible(db: PageDb, rows: RevRow[], entries: HistoryEntry[]): HistoryEntry[] {
  const oldest = rows[rows.length - 1];
  let below: { id: number | null } | undefined;
  const visibleBelowOldest = (): number | null =>
    (below ??= {
      id: oldest
        ? (db.rows("AND seq < ? AND suppressed = 0 ORDER BY seq DESC LIMIT 1", oldest.seq)[0]?.rev_id ?? null)
        : null,
    }).id;
  const parentSuppressed = (i: number): boolean => {
    const parent = rows[i + 1];
    if (parent) return parent.suppressed !== 0;
    const row = rows[i]!;
    return row.seq > 1 && db.rows("AND seq = ?", row.seq - 1)[0]?.suppressed === 1;
  };
  // The nearest visible revision among the listed rows older than row i, if any is.
  let previous: number | undefined;
  for (let i = rows.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (parentSuppressed(i)) entry.previousVisibleId = previous === undefined ? visibleBelowOldest() : previous;
    if (rows[i]!.suppressed === 0) previous = entry.id;
  }
  return entries;
}

/**
 * The latest revision's id, from its row alone (its metadata record is not decoded); none on a page deleted for good.
 */
function latestIdOf(db: PageDb, page: PageRow | null): number | null {
  const seq = page?.deleted_at == null ? page?.latest_seq : null;
  return seq == null ? null : (db.rows("AND seq = ?", seq)[0]?.rev_id ?? null);
}

export function pageStats(db: PageDb): PageStats {
  const page = db.page();
  const one = (sql: string) => (db.claimed ? (db.sql.exec<{ n: number | null }>(sql, db.pg).one().n ?? 0) : 0);
  return {
    title: page?.title ?? null,
    revisions: page?.latest_seq ?? 0,
    contents: page?.content_count ?? 0,
    rawBytes: page?.raw_bytes ?? 0,
    blobs: one("SELECT count(*) AS n FROM blobs WHERE pg = ? AND state = 'live'"),
    blobBytes: one("SELECT sum(bytes) AS n FROM blobs WHERE pg = ? AND state = 'live'"),
    metadataBytes: db.databaseShare(),
    layout: page ? (JSON.parse(page.layout) as LayoutParams) : null,
    latestId: latestIdOf(db, page),
  };
}

/** What the page stores now, as its directory shard keeps it (src/page/directory.ts). */
export function pageFigures(db: PageDb, key: string, now: number): PageFigures {
  const s = pageStats(db);
  return {
    title: s.title ?? key,
    version: db.version(),
    // Deleted for good, or as MediaWiki deletes (restorable): either way out of every public listing.
    deleted: db.livePage() === null || db.kvGet(KV.hidden) !== undefined,
    restorable: db.livePage() !== null && db.kvGet(KV.hidden) !== undefined,
    revisions: s.revisions,
    rawBytes: s.rawBytes,
    blobBytes: s.blobBytes,
    metadataBytes: s.metadataBytes,
    reportedAt: now,
  };
}
