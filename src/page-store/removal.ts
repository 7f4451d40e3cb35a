/**
 * Removals: hiding a revision's content (its metadata stays listed) and
 * deleting a page (its metadata goes now, its blobs after the grace period).
 * Each raises the page's version and records a purge of every key it
 * touches, in the same transaction.
 */
import type { PageRef } from "../page/page-ref.ts";
import type { ListedRevision, StoreProblem } from "../page/types.ts";
import { recordPurge } from "../purge/outbox.ts";
import { KV, pageNotFound, refusal, toListed, type PageDb, type RevRow } from "./rows.ts";

export function suppressRevision(db: PageDb, ref: PageRef, revisionId: number, suppressed: boolean, region: string): { ok: true; revision: ListedRevision } | StoreProblem {
  const page = db.livePage();
  if (!page) return pageNotFound();
  const row = db.transaction(() => {
    const updated = db.sql.exec<RevRow>("UPDATE revs SET suppressed = ? WHERE rev_id = ? RETURNING seq, rev_id, ts, u, h, suppressed", suppressed ? 1 : 0, revisionId).toArray()[0];
    if (updated) recordPurge(db.sql, { page: ref.key, scope: { kind: "revisions", revisions: [revisionId] }, version: db.bumpVersion(), region });
    return updated;
  });
  if (!row) return refusal(404, "revision_not_found", `${page.title} has no revision ${revisionId}`);
  // Listed as every listing lists it: a suppressed revision without its size and hashes.
  return { ok: true, revision: toListed(db.withMeta([row])[0]!) };
}

export function deletePage(db: PageDb, ref: PageRef, region: string): { ok: true; revisions: number } | StoreProblem {
  if (!db.livePage()) return pageNotFound();
  const now = Date.now();
  const revisions = db.page()?.latest_seq ?? 0;
  db.transaction(() => {
    db.sql.exec("UPDATE blobs SET state = 'dead', since = ? WHERE state = 'live'", now);
    for (const table of ["revs", "meta"]) db.sql.exec(`DELETE FROM ${table}`);
    for (const range of [KV.groups, KV.tails]) db.kvDeleteRange(range);
    db.sql.exec("UPDATE page SET deleted_at = ?, latest_seq = NULL, content_count = 0, anchors_blob = NULL, raw_bytes = 0 WHERE id = 1", now);
    recordPurge(db.sql, { page: ref.key, scope: { kind: "page" }, version: db.bumpVersion(), region }, now);
  });
  return { ok: true, revisions };
}
