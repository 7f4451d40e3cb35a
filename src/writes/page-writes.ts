/**
 * The archive's revision writes and takedowns as one call each, wherever
 * they come from (the write API, the dashboard, the deployment's wiki
 * follower): the page's PageStore takes the change, and the colo that asked
 * applies its purge to its own lower tier before answering, so it serves the
 * change at once. A refusal is thrown as the problem the write API answers.
 *
 * Takedowns (hiding a revision's fields, deleting or restoring a page) carry
 * who asked and why; each is recorded in the audit log.
 *
 * @example
 * const written = await appendRevisions(env, coloOf(request, env), pageRef("Sandbox"), revisions);
 * await setPageDeleted(env, colo, pageRef("Sandbox"), true, { by: "alice", reason: "copyright complaint" });
 */
import { pageStoreOf } from "../bindings.ts";
import type { Colo } from "../config/colo.ts";
import { purgeHere } from "../purge/apply.ts";
import { revisionAction, traceTakedown } from "../purge/takedown-log.ts";
import type { PageRef } from "../page/page-ref.ts";
import { storeProblem } from "../page/store-problem.ts";
import type { HiddenFields, NewRevision, StoreRevision } from "../page/types.ts";

const encoder = new TextEncoder();

/** Who asked for a takedown, and why: a token's or a dashboard login's name, or the follower of a wiki. */
export interface Takedown {
  by: string;
  reason: string;
}

/** Appends a batch, all or none (the PageStore's rules: chained to the page's latest, idempotent per id). */
export async function appendRevisions(env: Env, { colo, region }: Colo, ref: PageRef, revisions: NewRevision[]) {
  // As UTF-8, a text crosses RPC at its wire size; as a JS string it could take twice that.
  const stored: StoreRevision[] = revisions.map((r) => ({ ...r, text: encoder.encode(r.text) }));
  const result = await pageStoreOf(env, ref.key).append(ref, stored, region);
  if (!result.ok) throw storeProblem(result, ref.title);
  // A filled-in text changes that revision's answers too (src/page-store/commit.ts).
  if (result.filled.length > 0)
    await purgeHere(env, colo, ref.key, { kind: "revisions", revisions: result.filled }, result.version);
  else if (result.created.length > 0) await purgeHere(env, colo, ref.key, { kind: "mutable" }, result.version);
  return result;
}

/**
 * Hides (or shows again) some of a revision's fields: its content (the archive's suppression), its
 * comment, its contributor. A field left out of `change` stays as it is. The caller knows the page exists.
 */
export async function setRevisionHidden(
  env: Env,
  { colo, region }: Colo,
  ref: PageRef,
  id: number,
  change: HiddenFields,
  takedown: Takedown,
) {
  const result = await pageStoreOf(env, ref.key).setHidden(ref, id, change, region);
  if (!result.ok) throw storeProblem(result, ref.title);
  // Recorded once the store has changed (a refused change is not a takedown), before this colo's purge.
  await traceTakedown(env, { ...takedown, page: ref.title, action: revisionAction(id, change), purges: result.purges });
  await purgeHere(env, colo, ref.key, { kind: "revisions", revisions: [id] }, result.version);
  return result;
}

/** Hides (or shows again) a revision's content; its metadata stays listed. The caller knows the page exists. */
export function setRevisionSuppressed(
  env: Env,
  colo: Colo,
  ref: PageRef,
  id: number,
  suppressed: boolean,
  takedown: Takedown,
) {
  return setRevisionHidden(env, colo, ref, id, { content: suppressed }, takedown);
}

/**
 * Deletes a page as MediaWiki does (every public answer for it is 410, its title leaves the listings
 * and search) or restores it (all of it comes back, nothing lost). Its revisions, blobs and ids are
 * kept; a backup-scope export still holds it. The caller knows the page exists.
 */
export async function setPageDeleted(
  env: Env,
  { colo, region }: Colo,
  ref: PageRef,
  deleted: boolean,
  takedown: Takedown,
) {
  const result = await pageStoreOf(env, ref.key).setPageHidden(ref, deleted, region);
  if (!result.ok) throw storeProblem(result, ref.title);
  await traceTakedown(env, { ...takedown, page: ref.title, action: { kind: "page", deleted }, purges: result.purges });
  await purgeHere(env, colo, ref.key, { kind: "page" }, result.version);
  return result;
}

/**
 * Deletes the page for good: its metadata goes now, its blobs after the grace period, its revision ids
 * are retired (a later page of that title may not give them other content). The caller knows the page exists.
 */
export async function erasePage(env: Env, { colo, region }: Colo, ref: PageRef, takedown: Takedown) {
  const result = await pageStoreOf(env, ref.key).deletePage(ref, region);
  if (!result.ok) throw storeProblem(result, ref.title);
  await traceTakedown(env, {
    ...takedown,
    page: ref.title,
    action: { kind: "page", deleted: true, forGood: true },
    purges: result.purges,
  });
  await purgeHere(env, colo, ref.key, { kind: "page" }, result.version);
  return result;
}
