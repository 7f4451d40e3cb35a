/**
 * Removals: hiding a revision's content, comment or contributor (its other
 * metadata stays listed), deleting a page as MediaWiki does (restorable:
 * everything kept, nothing public), and deleting a page for good (its
 * metadata goes now, its blobs after the grace period).
 * Each raises the page's version and records a purge of every key it
 * touches, in the same transaction.
 */
import type { PageRef } from "../page/page-ref.ts";
import type { HiddenFields, ListedRevision, StoreProblem } from "../page/types.ts";
import { recordPurge } from "../purge/outbox.ts";
import { HIDDEN, KV, pageNotFound, refusal, toListed, type PageDb, type RevRow } from "./rows.ts";

/**
 * Hides or shows a revision's content (the archive's suppression), comment or contributor, as
 * MediaWiki's revision deletion does; a field `change` leaves out stays as it is. A text the archive
 * never held cannot be shown again this way: sending the revision again with its text fills it in.
 */
export function setRevisionHidden(
  db: PageDb,
  ref: PageRef,
  revisionId: number,
  change: HiddenFields,
  region: string,
): { ok: true; revision: ListedRevision } | StoreProblem {
  const page = db.livePage();
  if (!page) return pageNotFound();
  const was = db.rows("AND rev_id = ?", revisionId)[0];
  if (!was) return refusal(404, "revision_not_found", `${page.title} has no revision ${revisionId}`);
  if (change.content === false && was.hidden & HIDDEN.textMissing)
    return refusal(
      409,
      "text_never_held",
      `revision ${revisionId} of ${page.title} was hidden before the archive first read it, so the archive has no text to show; send the revision again with its text to fill it in`,
      { revisionId },
    );
  const suppressed = change.content === undefined ? was.suppressed : change.content ? 1 : 0;
  let hidden = was.hidden;
  for (const field of ["comment", "contributor"] as const) {
    if (change[field] === true) hidden |= HIDDEN[field];
    if (change[field] === false) hidden &= ~HIDDEN[field];
  }
  const row = db.transaction(() => {
    const updated = db.sql
      .exec<RevRow>(
        "UPDATE revs SET suppressed = ?, hidden = ? WHERE pg = ? AND rev_id = ? RETURNING seq, rev_id, ts, u, h, suppressed, hidden",
        suppressed,
        hidden,
        db.pg,
        revisionId,
      )
      .toArray()[0]!;
    // The page's raw bytes count visible contents only: with the history's sizes public, a total would give the hidden
    // one's away.
    if (was.suppressed !== updated.suppressed) {
      const { bytes } = db.withMeta([updated])[0]!;
      db.sql.exec(
        "UPDATE pages SET raw_bytes = raw_bytes + ? WHERE pg = ?",
        updated.suppressed ? -bytes : bytes,
        db.pg,
      );
    }
    recordPurge(db, {
      page: ref.key,
      scope: { kind: "revisions", revisions: [revisionId] },
      version: db.bumpVersion(),
      region,
    });
    return updated;
  });
  // Listed as every listing lists it: a suppressed revision without its size and hashes.
  return { ok: true, revision: toListed(db.withMeta([row])[0]!) };
}

/**
 * Deletes the page as MediaWiki deletes it, or restores it: while deleted, every public answer for it
 * is 410 and its title leaves the listings, but everything is kept (a backup-scope export holds it,
 * marked deleted), so a restore brings it all back. Changes to it go on meanwhile, as MediaWiki's
 * archive keeps them.
 */
export function setPageHidden(
  db: PageDb,
  ref: PageRef,
  hidden: boolean,
  region: string,
): { ok: true; revisions: number; deleted: boolean } | StoreProblem {
  const page = db.livePage();
  if (!page) return pageNotFound();
  const now = Date.now();
  db.transaction(() => {
    if (hidden) db.kvPut(KV.hidden, now);
    else db.kvDelete(KV.hidden);
    recordPurge(db, { page: ref.key, scope: { kind: "page" }, version: db.bumpVersion(), region }, now);
  });
  return { ok: true, revisions: page.latest_seq ?? 0, deleted: hidden };
}

export function deletePage(db: PageDb, ref: PageRef, region: string): { ok: true; revisions: number } | StoreProblem {
  if (!db.livePage()) return pageNotFound();
  const now = Date.now();
  const revisions = db.page()?.latest_seq ?? 0;
  db.transaction(() => {
    db.sql.exec("UPDATE blobs SET state = 'dead', since = ? WHERE pg = ? AND state = 'live'", now, db.pg);
    // Their URLs were public: a later incarnation of the page may not give them other content.
    db.sql.exec(
      `INSERT OR REPLACE INTO kv (pg, k, v) SELECT pg, ? || rev_id, h FROM revs WHERE pg = ?`,
      KV.retiredPrefix,
      db.pg,
    );
    db.sql.exec("DELETE FROM revs WHERE pg = ?", db.pg);
    db.deleteMeta();
    for (const range of [KV.groups, KV.tails]) db.kvDeleteRange(range);
    db.kvDelete(KV.hidden);
    db.sql.exec(
      "UPDATE pages SET deleted_at = ?, latest_seq = NULL, content_count = 0, anchors_blob = NULL, raw_bytes = 0 WHERE pg = ?",
      now,
      db.pg,
    );
    db.countRevisions(-revisions);
    recordPurge(db, { page: ref.key, scope: { kind: "page" }, version: db.bumpVersion(), region }, now);
  });
  return { ok: true, revisions };
}
