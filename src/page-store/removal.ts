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

export function suppressRevision(
  db: PageDb,
  ref: PageRef,
  revisionId: number,
  suppressed: boolean,
  region: string,
): { ok: true; revision: ListedRevision } | StoreProblem {
  const page = db.livePage();
  if (!page) return pageNotFound();
  const row = db.transaction(() => {
    const was = db.rows("WHERE rev_id = ?", revisionId)[0];
    const updated = db.sql
      .exec<RevRow>(
        "UPDATE revs SET suppressed = ? WHERE rev_id = ? RETURNING seq, rev_id, ts, u, h, suppressed",
        suppressed ? 1 : 0,
        revisionId,
      )
      .toArray()[0];
    // The page's raw bytes count visible contents only: with the history's sizes public, a total would give the hidden one's away.
    if (updated && was && was.suppressed !== updated.suppressed) {
      const { bytes } = db.withMeta([updated])[0]!;
      db.sql.exec("UPDATE page SET raw_bytes = raw_bytes + ? WHERE id = 1", suppressed ? -bytes : bytes);
    }
    if (updated)
      recordPurge(db.sql, {
        page: ref.key,
        scope: { kind: "revisions", revisions: [revisionId] },
        version: db.bumpVersion(),
        region,
      });
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
    // Their URLs were public: a later incarnation of the page may not give them other content.
    db.sql.exec("INSERT OR REPLACE INTO retired (rev_id, h) SELECT rev_id, h FROM revs");
    for (const table of ["revs", "meta"]) db.sql.exec(`DELETE FROM ${table}`);
    for (const range of [KV.groups, KV.tails]) db.kvDeleteRange(range);
    db.sql.exec(
      "UPDATE page SET deleted_at = ?, latest_seq = NULL, content_count = 0, anchors_blob = NULL, raw_bytes = 0 WHERE id = 1",
      now,
    );
    recordPurge(db.sql, { page: ref.key, scope: { kind: "page" }, version: db.bumpVersion(), region }, now);
  });
  return { ok: true, revisions };
}
