/**
 * TimeMap serialisations of one TimeMap page: `application/link-format`
 * and the JSON TimeMap of
 * mementoweb.org's guide. A history longer than a page
 * (`LIMITS.memento.timemapPageSize`) is paged: each page names itself
 * (`rel="self"`, with `from` and `until`, RFC 7089 §5) and links the page
 * before and after it with `rel="prev"` / `rel="next"` (each with its own
 * type), as the Memento aggregator's paged TimeMaps do; the JSON form
 * carries the same links under `pages`.
 *
 * The link-format body is strict RFC 6690: link-values joined by a bare
 * `,`, no whitespace after `;`, no newline anywhere (RFC 7089 §5's
 * examples break lines for the page, which a strict parser refuses).
 *
 * @example
 * renderLinkTimemap(mementoUrls(base, "Vellum"), page, {});
 * // <…/page/Vellum>;rel="original",<…/page/Vellum>;rel="timegate",
 * // <…/timemap/link/Vellum>;rel="self";type="application/link-format";from="…";until="…",…
 */
import { formatHttpDate } from "../http/datetime.ts";
import { LINK_FORMAT, linkValue, type MementoUrls } from "./links.ts";
import type { MementoRef, TimemapCursor, TimemapPage } from "./types.ts";

/** Cursors of the pages around this one, if they exist. */
function neighbours(page: TimemapPage): { prev: TimemapCursor | null; next: TimemapCursor | null } {
  const oldest = page.mementos[0];
  const newest = page.mementos[page.mementos.length - 1];
  return {
    prev: page.hasOlder && oldest ? { before: oldest.id } : null,
    next: page.hasNewer && newest ? { after: newest.id } : null,
  };
}

function rels(ref: MementoRef, page: TimemapPage): string[] {
  const names: string[] = [];
  if (ref.id === page.first.id) names.push("first");
  if (ref.id === page.last.id) names.push("last");
  return [...names, "memento"];
}

export function renderLinkTimemap(urls: MementoUrls, page: TimemapPage, cursor: TimemapCursor): string {
  const span = (refs: MementoRef[]): Record<string, string> =>
    refs.length ? { from: formatHttpDate(refs[0]!.ts), until: formatHttpDate(refs[refs.length - 1]!.ts) } : {};
  const around = neighbours(page);
  const lines = [
    linkValue(urls.original, ["original"]),
    linkValue(urls.original, ["timegate"]),
    linkValue(urls.timemap("link", cursor), ["self"], { type: LINK_FORMAT, ...span(page.mementos) }),
    ...(around.prev ? [linkValue(urls.timemap("link", around.prev), ["prev"], { type: LINK_FORMAT })] : []),
    ...(around.next ? [linkValue(urls.timemap("link", around.next), ["next"], { type: LINK_FORMAT })] : []),
    ...page.mementos.map((ref) =>
      linkValue(urls.memento(ref.id), rels(ref, page), { datetime: formatHttpDate(ref.ts) }),
    ),
  ];
  return lines.join(",");
}

/** The JSON TimeMap; `datetime`s are ISO-8601 (UTC), as the guide's examples give them. */
export interface JsonTimemap {
  original_uri: string;
  timegate_uri: string;
  timemap_uri: { link_format: string; json_format: string };
  mementos: {
    first: { datetime: string; uri: string };
    last: { datetime: string; uri: string };
    list: Array<{ datetime: string; uri: string }>;
  };
  pages: { prev: { uri: string } | null; next: { uri: string } | null };
}

export function renderJsonTimemap(urls: MementoUrls, page: TimemapPage, cursor: TimemapCursor): JsonTimemap {
  const entry = (ref: MementoRef) => ({
    datetime: new Date(ref.ts * 1000).toISOString().replace(".000Z", "Z"),
    uri: urls.memento(ref.id),
  });
  const around = neighbours(page);
  return {
    original_uri: urls.original,
    timegate_uri: urls.original,
    timemap_uri: { link_format: urls.timemap("link", cursor), json_format: urls.timemap("json", cursor) },
    mementos: { first: entry(page.first), last: entry(page.last), list: page.mementos.map(entry) },
    pages: {
      prev: around.prev ? { uri: urls.timemap("json", around.prev) } : null,
      next: around.next ? { uri: urls.timemap("json", around.next) } : null,
    },
  };
}
