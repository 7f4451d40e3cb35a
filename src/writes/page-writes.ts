/**
 * The archive's two revision writes as one call each, wherever they come
 * from (the write API, the deployment's wiki follower): the page's
 * PageStore takes the change, and the colo that asked applies its purge to
 * its own lower tier before answering, so it serves the change at once.
 * A refusal is thrown as the problem the write API answers.
 *
 * @example
 * const written = await appendRevisions(env, coloOf(request, env), pageRef("Sandbox"), revisions);
 */
import { pageStoreOf } from "../bindings.ts";
import type { Colo } from "../config/colo.ts";
import { purgeHere } from "../purge/apply.ts";
import type { PageRef } from "../page/page-ref.ts";
import { storeProblem } from "../page/store-problem.ts";
import type { NewRevision, StoreRevision } from "../page/types.ts";

const encoder = new TextEncoder();

/** Appends a batch, all or none (the PageStore's rules: chained to the page's latest, idempotent per id). */
export async function appendRevisions(env: Env, { colo, region }: Colo, ref: PageRef, revisions: NewRevision[]) {
  // As UTF-8, a text crosses RPC at its wire size; as a JS string it could take twice that.
  const stored: StoreRevision[] = revisions.map((r) => ({ ...r, text: encoder.encode(r.text) }));
  const result = await pageStoreOf(env, ref.key).append(ref, stored, region);
  if (!result.ok) throw storeProblem(result, ref.title);
  if (result.created.length > 0) await purgeHere(env, colo, ref.key, { kind: "mutable" }, result.version);
  return result;
}

/** Hides (or shows again) a revision's content; its metadata stays listed. The caller knows the page exists. */
export async function setRevisionSuppressed(
  env: Env,
  { colo, region }: Colo,
  ref: PageRef,
  id: number,
  suppressed: boolean,
) {
  const result = await pageStoreOf(env, ref.key).setSuppressed(ref, id, suppressed, region);
  if (!result.ok) throw storeProblem(result, ref.title);
  await purgeHere(env, colo, ref.key, { kind: "revisions", revisions: [id] }, result.version);
  return result;
}
