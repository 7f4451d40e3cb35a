/**
 * The origin's Memento answers: a memento's place in time (small JSON the
 * edge turns into Link headers and TimeGate redirects), the page's memento
 * index (every revision's place at once, what a revision's Link header is
 * read from) and TimeMap pages. All change with every write of their page
 * (a new `last memento`, a `next memento` for the former latest), so all
 * are mutable answers: a write's purge of its page's mutable keys drops them
 * from every tier.
 */
import { pageStoreOf } from "../bindings.ts";
import { sha256Hex } from "../lib/digests.ts";
import { CACHE_CONTROL } from "../representation/cache-control.ts";
import { LIMITS } from "../limits.ts";
import type { Answer, OriginQuery } from "./answer.ts";
import { answerTags } from "./tags.ts";
import { storeProblem } from "../page/store-problem.ts";
import { LINK_FORMAT, mementoUrls } from "../memento/links.ts";
import { renderJsonTimemap, renderLinkTimemap } from "../memento/timemap.ts";
import type { MementoIndex } from "../memento/types.ts";
import type { HistoryPage, StoreProblem } from "../page/types.ts";

/** What a write changes: the one policy for TimeMaps and Memento answers (src/representation/cache-control.ts). */
export const MEMENTO_CACHE_CONTROL = CACHE_CONTROL.timemap;

/**
 * A small mutable JSON (or link-format) answer about a page: Memento answers, TimeMaps, the time line
 * (src/origin/timeline-answer.ts).
 */
export async function answer(
  query: OriginQuery,
  contentType: string,
  text: string,
  version: number,
  tagged = false,
): Promise<Answer> {
  const tags = answerTags(query.ref.key, contentType);
  const body = new TextEncoder().encode(text);
  const headers: Record<string, string> = {
    "content-type": contentType,
    "cache-control": MEMENTO_CACHE_CONTROL,
    "cache-tag": tags.join(","),
  };
  // A TimeMap is sent as is: its validator is made once here, not on every read.
  if (tagged) headers.etag = `"${await sha256Hex(body)}"`;
  return {
    status: 200,
    headers,
    body,
    version,
    page: query.ref.key,
    mutable: true,
    storedAt: Date.now(),
    tags,
  };
}

export async function renderMementoInfo(env: Env, query: Extract<OriginQuery, { kind: "memento" }>): Promise<Answer> {
  const found = await pageStoreOf(env, query.ref.key).memento(query.which);
  if ("ok" in found) throw storeProblem(found, query.ref.title);
  const { version, ...info } = found;
  return answer(query, "application/json", JSON.stringify(info), version);
}

/**
 * The page's memento index (`MementoIndex`), from its history listing: every
 * revision's id, time and suppression, put in time order (time, then append
 * order, as the store's time index has them). A page with more revisions than
 * `memento.indexMaxRevisions` gets an index of none, and each revision's
 * place is then asked for by id.
 */
export async function renderMementoIndex(env: Env, query: Extract<OriginQuery, { kind: "mementos" }>): Promise<Answer> {
  return mementoIndexAnswer(query, await pageStoreOf(env, query.ref.key).history({}, LIMITS.memento.indexMaxRevisions));
}

/** The memento index answer made from the page's newest `memento.indexMaxRevisions` revisions' listing. */
export async function mementoIndexAnswer(
  query: Extract<OriginQuery, { kind: "mementos" }>,
  found: HistoryPage | StoreProblem,
): Promise<Answer> {
  if ("ok" in found) throw storeProblem(found, query.ref.title);
  const index: MementoIndex = { title: found.title, mementos: null };
  if (found.older === null) {
    // Newest first by append order: reversed, a stable sort by time keeps append order within a second.
    const inAppendOrder = [...found.revisions].reverse();
    index.mementos = inAppendOrder
      .map((r): [number, number, 0 | 1] => [r.id, Math.floor(Date.parse(r.timestamp) / 1000), r.suppressed ? 1 : 0])
      .sort((a, b) => a[1] - b[1]);
  }
  return answer(query, "application/json", JSON.stringify(index), found.version);
}

export async function renderTimemap(env: Env, query: Extract<OriginQuery, { kind: "timemap" }>): Promise<Answer> {
  const found = await pageStoreOf(env, query.ref.key).timemap(query.cursor, LIMITS.memento.timemapPageSize);
  if ("ok" in found) throw storeProblem(found, query.ref.title);
  const { version, ...page } = found;
  const urls = mementoUrls(query.base, query.ref.key);
  return query.format === "link"
    ? answer(query, `${LINK_FORMAT}; charset=utf-8`, renderLinkTimemap(urls, page, query.cursor), version, true)
    : answer(
        query,
        "application/json; charset=utf-8",
        JSON.stringify(renderJsonTimemap(urls, page, query.cursor)),
        version,
        true,
      );
}
