/**
 * What a tier keeps beside the answer it filled, each at this level by the tier a read of its key
 * looks in (rendezvous on the key, so most often another member of the pool):
 *
 * - a latest answer is also its revision's answer: kept under the revision's key too, so the first
 *   read of a new revision by id after a read of the latest is a hit;
 * - the answers the origin made in the same render (src/origin/latest-and-index.ts: a page's latest
 *   and its memento index come together), each under its own key, and the latest among them under
 *   its revision's key as well.
 *
 * Each is refused where it lands if that tier's floor or purge marks forbid it, as any fill is.
 *
 * @example
 * store.keep(request, read.entry);
 * keepCopies(env, store, self, request, read, waitUntil);
 */
import { regionalTierFor, tierCacheOf, tierName, upperTierFor, type TierIdentity } from "../bindings.ts";
import { errorMessage } from "../lib/errors.ts";
import type { Answer, OriginQuery } from "../origin/answer.ts";
import { asRevisionAnswer } from "../origin/render.ts";
import { cacheKeyOf, revisionKey, type CacheKey } from "./cache-key.ts";
import type { TierRead } from "./request.ts";
import type { TierStore } from "./tier-store.ts";

/** The tier at `self`'s level, and in its region, that holds `key`: where a read of `key` looks. */
function homeAtLevel(env: Env, self: TierIdentity, key: string): TierIdentity {
  return self.level === "upper" ? upperTierFor(env, key) : regionalTierFor(env, self.region, key);
}

/** A latest answer's copy under its revision's key, if `query` is a latest (not `?at=`) that answered a revision. */
function revisionCopy(query: OriginQuery, answer: Answer): { key: CacheKey; answer: Answer } | undefined {
  if (query.kind !== "latest" || query.at !== undefined) return undefined;
  if (answer.status !== 200 || answer.revisionId === undefined) return undefined;
  return { key: revisionKey(query.ref.key, answer.revisionId), answer: asRevisionAnswer(answer) };
}

/** Everything `read` (the answer to `query`) brings for this level to keep besides itself. */
function copiesOf(query: OriginQuery, read: TierRead): Array<{ key: CacheKey; answer: Answer }> {
  const copies = [revisionCopy(query, read.entry)];
  for (const companion of read.also ?? []) {
    if (companion.answer.status !== 200) continue;
    copies.push({ key: cacheKeyOf(companion.query), answer: companion.answer });
    copies.push(revisionCopy(companion.query, companion.answer));
  }
  return copies.filter((c) => c !== undefined);
}

/** Keeps what `read` brings besides its answer, each where its key lives at this level. */
export function keepCopies(
  env: Env,
  store: TierStore,
  self: TierIdentity,
  query: OriginQuery,
  read: TierRead,
  waitUntil: (p: Promise<unknown>) => void,
): void {
  for (const { key, answer } of copiesOf(query, read)) {
    const home = homeAtLevel(env, self, key.key);
    if (home.member === self.member) {
      store.keep(key, answer);
      continue;
    }
    waitUntil(
      tierCacheOf(env, home)
        .keepCopy(key, answer)
        .catch((err: unknown) => console.warn("copy not kept", key.key, tierName(home), errorMessage(err))),
    );
  }
}
