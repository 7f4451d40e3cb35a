/**
 * The origin's Memento answers: a memento's place in time (small JSON the
 * edge turns into Link headers and TimeGate redirects) and TimeMap pages.
 * Both change with every write of their page (a new `last memento`, a
 * `next memento` for the former latest), so both are mutable answers: a
 * write's purge of its page's mutable keys drops them from every tier.
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

/** What a write changes: the one policy for TimeMaps and Memento answers (src/representation/cache-control.ts). */
export const MEMENTO_CACHE_CONTROL = CACHE_CONTROL.timemap;

/** A small mutable JSON (or link-format) answer about a page: Memento answers, TimeMaps, the time line (src/origin/timeline-answer.ts). */
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
