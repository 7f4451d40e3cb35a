/**
 * A page's latest answer and its memento index from one origin render. A write changes both, and a
 * page read after a write is soon asked for both: its latest, and the index every revision read by
 * id takes its Memento links from. So a tier that misses either gets both from one PageStore call
 * (`latestWithHistory`, which reads both at one version) and keeps the one it did not ask for beside
 * the other (src/tiers/copies.ts): a write costs its page one render instead of two. The latest's
 * blob is fetched and decoded even when only the index was asked for, unless the latest is bigger
 * than a tier entry (tiers.maxEntryBytes): no tier could keep it, so the index goes alone. Every
 * other query renders alone.
 *
 * @example
 * const { answer, also } = await renderWithCompanions(env, { kind: "mementos", ref });
 * // answer: the index; also: [{ query: { kind: "latest", ref }, answer: the latest }] (when it is a 200)
 */
import { pageStoreOf } from "../bindings.ts";
import { HopTimer } from "../http/server-timing.ts";
import { LIMITS } from "../limits.ts";
import { pageExists } from "../page/directory.ts";
import type { PageRef } from "../page/page-ref.ts";
import type { Answer, OriginQuery } from "./answer.ts";
import { mementoIndexAnswer } from "./memento-answers.ts";
import { readLocated } from "./page-origin.ts";
import { notFoundAnswer, renderOrigin, revisionAnswer, thrownAnswer } from "./render.ts";

/** An answer the origin made beside the one asked for, in the same render: a tier keeps it under its query's key. */
export interface Companion {
  query: OriginQuery;
  answer: Answer;
}

/** What one origin render gives a tier: the answer asked for, and its companions (200s only). */
export interface Rendered {
  answer: Answer;
  also: Companion[];
}

/** The latest (not a `?at=` one) and the memento index of `ref`: the queries rendered together. */
function pairOf(ref: PageRef) {
  return {
    latest: { kind: "latest", ref } satisfies Extract<OriginQuery, { kind: "latest" }>,
    index: { kind: "mementos", ref } satisfies Extract<OriginQuery, { kind: "mementos" }>,
  };
}

/**
 * The answer for `query` and, for a page's latest or its memento index, the other one too. `timer`
 * takes the render's hops (src/http/server-timing.ts): the one PageStore call counts as `locate`.
 */
export async function renderWithCompanions(env: Env, query: OriginQuery, timer = new HopTimer()): Promise<Rendered> {
  const paired = query.kind === "mementos" || (query.kind === "latest" && query.at === undefined);
  if (!paired) return { answer: await renderOrigin(env, query, timer), also: [] };
  // Titles nobody wrote are answered here, without waking (and so creating) their PageStore.
  if (!(await timer.time("directory", () => pageExists(env, query.ref.key))))
    return { answer: notFoundAnswer(env, query), also: [] };
  const pair = pairOf(query.ref);
  const found = await timer
    .time("locate", () => pageStoreOf(env, query.ref.key).latestWithHistory(LIMITS.memento.indexMaxRevisions))
    .catch((err: unknown) => thrownAnswer(env, query, err));
  if (!("latest" in found)) return { answer: found, also: [] };
  const index = mementoIndexAnswer(pair.index, found.history);
  // A latest too big for any tier entry would be decoded and encoded only to be dropped.
  if (query.kind === "mementos" && found.latest.ok && found.latest.revision.bytes > LIMITS.tiers.maxEntryBytes)
    return { answer: await index.catch((err: unknown) => thrownAnswer(env, query, err)), also: [] };
  const latest = readLocated(env, query.ref, found.latest, timer).then((r) =>
    revisionAnswer(pair.latest, r, true, timer),
  );
  const [asked, other, otherQuery] =
    query.kind === "latest" ? [latest, index, pair.index] : [index, latest, pair.latest];
  // Neither waits for the other to fail: a companion that cannot be made is only not kept.
  other.catch(() => undefined);
  const answer = await asked.catch((err: unknown) => thrownAnswer(env, query, err));
  const companion = await other.catch(() => undefined);
  return { answer, also: companion?.status === 200 ? [{ query: otherQuery, answer: companion }] : [] };
}
