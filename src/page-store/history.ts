/** Listing: a page's revisions newest first, in cursor pages, and its storage figures. */
import type { HistoryPage, PageStats, StoreProblem } from "../page/types.ts";
import { refusal, pageNotFound, toMeta, type PageDb } from "./rows.ts";

export function historyPage(db: PageDb, cursor: { before?: number; after?: number }, limit: number): HistoryPage | StoreProblem {
  const page = db.page();
  if (!page) return pageNotFound();
  if (page.deleted_at != null) return refusal(410, "page_deleted", `the page ${page.title} was deleted`);
  const rows =
    cursor.after !== undefined
      ? db.rows("WHERE seq > ? ORDER BY seq ASC LIMIT ?", cursor.after, limit).reverse()
      : db.rows("WHERE seq < ? ORDER BY seq DESC LIMIT ?", cursor.before ?? Number.MAX_SAFE_INTEGER, limit);
  const first = rows[0]?.seq;
  const last = rows[rows.length - 1]?.seq;
  const exists = (sql: string, seq: number | undefined) => seq !== undefined && db.sql.exec(sql, seq).toArray().length > 0;
  return {
    title: page.title,
    revisions: db.withMeta(rows).map(toMeta),
    older: exists("SELECT 1 FROM revs WHERE seq < ? LIMIT 1", last) ? `b${last}` : null,
    newer: exists("SELECT 1 FROM revs WHERE seq > ? LIMIT 1", first) ? `a${first}` : null,
    total: page.latest_seq ?? 0,
    version: db.version(),
  };
}

export function pageStats(db: PageDb): PageStats {
  const page = db.page();
  const one = (sql: string) => db.sql.exec<{ n: number | null }>(sql).one().n ?? 0;
  return {
    title: page?.title ?? null,
    revisions: page?.latest_seq ?? 0,
    contents: page?.content_count ?? 0,
    rawBytes: page?.raw_bytes ?? 0,
    blobs: one("SELECT count(*) AS n FROM blobs WHERE state = 'live'"),
    blobBytes: one("SELECT sum(bytes) AS n FROM blobs WHERE state = 'live'"),
    metadataBytes: db.databaseBytes(),
    layout: page ? JSON.parse(page.layout) : null,
  };
}
