/**
 * The origin's time-line answer (src/page/timeline.ts): a page's years and
 * latest visible revision, and one revision's place in its history, as
 * small JSON the revision viewer and the history page read through the
 * tiers. It changes with every write and suppression of its page (a new
 * latest, a new next edit), so it is a mutable answer, dropped from every
 * tier by the page's purge, as Memento answers are.
 */
import { pageStoreOf } from "../bindings.ts";
import { storeProblem } from "../page/store-problem.ts";
import type { Answer, OriginQuery } from "./answer.ts";
import { answer } from "./memento-answers.ts";

export async function renderTimeline(env: Env, query: Extract<OriginQuery, { kind: "timeline" }>): Promise<Answer> {
  const found = await pageStoreOf(env, query.ref.key).timeline(query.id);
  if ("ok" in found) throw storeProblem(found, query.ref.title);
  const { version, ...timeline } = found;
  return answer(query, "application/json", JSON.stringify(timeline), version);
}
