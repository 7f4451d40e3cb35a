/** Reading: which stored record holds a revision, for the origin to fetch and decode. */
import type { LocateResult, RevisionSelector } from "../page/types.ts";
import type { ContentLocation } from "../storage/revision-reader.ts";
import { recordOf, type LayoutParams } from "../storage/layout.ts";
import { visibleAt } from "./mementos.ts";
import { KV, refusal, isRefused, publicPage, toMeta, type PageDb, type PageRow, type Revision } from "./rows.ts";

export function locateRevision(db: PageDb, selector: RevisionSelector): LocateResult {
  const page = publicPage(db);
  if (isRefused(page)) return page;
  let row: Revision | undefined;
  if (selector.kind === "latest") row = db.latestRow(page) ?? undefined;
  else if (selector.kind === "id") row = db.revisionById(selector.id);
  else {
    // The revision current then, as the TimeGate and /web/ choose it: never a suppressed one.
    const current = visibleAt(db, selector.epochSeconds);
    row = current && db.revisionById(current.rev_id);
  }
  if (!row) {
    const what =
      selector.kind === "id"
        ? `revision ${selector.id}`
        : selector.kind === "at"
          ? "revision that is not suppressed"
          : "any revision";
    return refusal(404, "revision_not_found", `${page.title} has no ${what}`, {
      latestId: db.latestRow(page)?.rev_id ?? null,
    });
  }
  const revision = toMeta(row);
  if (row.suppressed)
    return refusal(410, "revision_suppressed", `revision ${row.rev_id} of ${page.title} is suppressed`, {
      revisionId: row.rev_id,
    });
  return { ok: true, title: page.title, revision, location: contentLocation(db, page, row), version: db.version() };
}

/** Where a revision's content is stored, suppressed or not: the caller decides who may read it. */
export function contentLocation(db: PageDb, page: PageRow, row: Revision): ContentLocation {
  const anchorsBlob = page.anchors_blob!;
  const { record, part, holder } = recordOf(
    row.u,
    page.content_count,
    (JSON.parse(page.layout) as LayoutParams).groupSize,
  );
  const blob =
    holder.kind === "anchors"
      ? anchorsBlob
      : holder.kind === "group"
        ? holderBlob(db, KV.group(holder.group))
        : holderBlob(db, KV.tail(holder.u));
  return { record, blob, part, anchorsBlob, sha256: row.sha256 };
}

function holderBlob(db: PageDb, key: string): string {
  const blob = db.kvGet(key);
  if (typeof blob !== "string") throw new Error(`the page's layout names no blob for ${key}`);
  return blob;
}
