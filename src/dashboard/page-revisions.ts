/**
 * A page's revisions as the dashboard's takedown view shows them: newest
 * first, a page at a time, with which fields are hidden, whether the page
 * is deleted (restorable), and the cursor to older ones. Read as a backup
 * export reads them, so a deleted page still lists (an operator restores
 * it from here), but a hidden comment or contributor is never passed on:
 * the view shows that it is hidden, not what it was.
 *
 * @example
 * const page = await pageRevisions(env, pageRef("Vellum"), null, 50);
 * // { title: "Vellum", deleted: false, revisions: [{ id: 2000120, hidden: { content: false, … }, … }], older: "b70" }
 */
import { pageStoreOf } from "../bindings.ts";
import { ProblemError } from "../http/problem.ts";
import type { PageRef } from "../page/page-ref.ts";
import { storeProblem } from "../page/store-problem.ts";
import type { ExportAnswer } from "../page/export-types.ts";
import type { TakedownField } from "../purge/takedown-log.ts";

export interface OperatorRevision {
  id: number;
  timestamp: string;
  /** Null when hidden. */
  contributor: string | null;
  /** Null when hidden. */
  comment: string | null;
  hidden: Record<TakedownField, boolean>;
  /** Hidden before the archive first read it: there is no text to show again. */
  textMissing: boolean;
}

export interface PageRevisions {
  title: string;
  deleted: boolean;
  revisions: OperatorRevision[];
  /** Cursor (`b<seq>`) for the next older revisions, if any. */
  older: string | null;
}

const isProblem = (a: ExportAnswer): a is Extract<ExportAnswer, { ok: false }> => "ok" in a && a.ok === false;

/** Parses an `older` cursor this view gave (`b<seq>`); a 400 otherwise. */
export function olderCursor(raw: string | undefined): number | null {
  if (raw === undefined || raw === "") return null;
  const m = /^b(\d{1,15})$/.exec(raw);
  if (!m)
    throw new ProblemError({
      status: 400,
      code: "invalid_cursor",
      detail: "older is not a cursor this page gave",
    });
  return Number(m[1]);
}

/** `limit` revisions before the seq `before` (null: the newest). The caller knows the page exists. */
export async function pageRevisions(
  env: Env,
  ref: PageRef,
  before: number | null,
  limit: number,
): Promise<PageRevisions> {
  const store = pageStoreOf(env, ref.key);
  const plan = await store.exportRevisions({
    kind: "plan",
    start: before === null ? null : { before },
    dir: "desc",
    limit,
    // Only metadata is read: no text bound applies.
    maxBytes: Number.MAX_SAFE_INTEGER,
    withSuppressed: true,
  });
  if (isProblem(plan)) throw storeProblem(plan, ref.title);
  if (!("range" in plan)) throw new Error("a plan query answered with a batch");
  let revisions: OperatorRevision[] = [];
  if (plan.range) {
    const batch = await store.exportRevisions({
      kind: "batch",
      from: plan.range.from,
      to: plan.range.to,
      limit,
      withSuppressed: true,
    });
    if (isProblem(batch)) throw storeProblem(batch, ref.title);
    if (!("revisions" in batch)) throw new Error("a batch query answered with a plan");
    revisions = batch.revisions.map(({ revision: r }) => {
      const commentHidden = "commentHidden" in r && r.commentHidden === true;
      const contributorHidden = "contributorHidden" in r && r.contributorHidden === true;
      return {
        id: r.id,
        timestamp: r.timestamp,
        contributor: contributorHidden ? null : r.contributor,
        comment: commentHidden ? null : r.comment,
        hidden: { content: r.suppressed, comment: commentHidden, contributor: contributorHidden },
        textMissing: "textMissing" in r && r.textMissing === true,
      };
    });
  }
  return { title: plan.title, deleted: plan.deleted === true, revisions, older: plan.next };
}
