/**
 * The URIs of Memento's resources for a page, and Link header values
 * (RFC 8288 syntax; RFC 7089 §2.2 relation types). Link-values are written
 * as strict RFC 6690 has them (no whitespace around `;`), so the same
 * values serve headers and link-format TimeMaps, and each relation the
 * clients look for by name (`original`, `timegate`) is a link-value of its
 * own: pywb and others do not split `rel="original timegate"`. The archive follows
 * RFC 7089 §4.1.1, Pattern 1.1 (URI-R = URI-G, 302-style negotiation):
 * `/page/{title}` is at once the original resource (its current state) and
 * its TimeGate; each revision `/page/{title}/{revid}` is a Memento.
 *
 * @example
 * const urls = mementoUrls("https://archive.example", "Vellum");
 * linkValue(urls.memento(7), ["prev", "memento"], { datetime: formatHttpDate(ts) });
 * // <https://archive.example/page/Vellum/7>;rel="prev memento";datetime="…"
 */
import { titleSegment } from "../page/page-ref.ts";
import { formatHttpDate } from "../http/datetime.ts";
import type { MementoInfo, MementoRef } from "./types.ts";

export const LINK_FORMAT = "application/link-format";

export interface MementoUrls {
  /** URI-R, also the TimeGate (URI-G). */
  original: string;
  timemap(format: "link" | "json", cursor?: { after?: number; before?: number }): string;
  memento(id: number): string;
}

export function mementoUrls(base: string, pageKey: string): MementoUrls {
  const segment = titleSegment(pageKey);
  return {
    original: `${base}/page/${segment}`,
    timemap: (format, cursor = {}) =>
      `${base}/timemap/${format}/${segment}${cursor.after !== undefined ? `?after=${cursor.after}` : cursor.before !== undefined ? `?before=${cursor.before}` : ""}`,
    memento: (id) => `${base}/page/${segment}/${id}`,
  };
}

/** One link-value: `<uri>;rel="a b";key="value"…`. Attribute values are quoted, so none may hold `"`. */
export function linkValue(uri: string, rels: readonly string[], attributes: Record<string, string> = {}): string {
  let out = `<${uri}>;rel="${rels.join(" ")}"`;
  for (const [key, value] of Object.entries(attributes)) out += `;${key}="${value}"`;
  return out;
}

/** Original, TimeGate and the two TimeMaps: what every Memento-aware response of a page links to. */
export function pageLinks(urls: MementoUrls): string[] {
  return [
    linkValue(urls.original, ["original"]),
    linkValue(urls.original, ["timegate"]),
    linkValue(urls.timemap("link"), ["timemap"], { type: LINK_FORMAT }),
    linkValue(urls.timemap("json"), ["timemap"], { type: "application/json" }),
  ];
}

/**
 * Links to mementos by relation, one link-value per memento: a memento
 * that is first and previous at once gets `rel="first prev memento"`
 * (RFC 7089 §2.2.1 allows the combined values), in time order. `memento`
 * alone names one by no other relation (the one a TimeGate selected).
 */
export function mementoLinks(
  urls: MementoUrls,
  named: Array<[rel: "first" | "prev" | "next" | "last" | "memento", MementoRef | null]>,
): string[] {
  const byId = new Map<number, { ref: MementoRef; rels: string[] }>();
  for (const [rel, ref] of named) {
    if (!ref) continue;
    const seen = byId.get(ref.id);
    if (seen) seen.rels.push(rel);
    else byId.set(ref.id, { ref, rels: [rel] });
  }
  return [...byId.values()]
    .sort((a, b) => a.ref.ts - b.ref.ts || a.ref.id - b.ref.id)
    .map(({ ref, rels }) =>
      linkValue(urls.memento(ref.id), [...rels.filter((r) => r !== "memento"), "memento"], {
        datetime: formatHttpDate(ref.ts),
      }),
    );
}

/**
 * The page's links, then first, prev, next and last around a memento; `selected` too, where a TimeGate names the one it
 * chose.
 */
function linkHeader(urls: MementoUrls, info: MementoInfo, selected: MementoRef | null): string {
  return [
    ...pageLinks(urls),
    ...mementoLinks(urls, [
      ["memento", selected],
      ["first", info.first],
      ["prev", info.prev],
      ["next", info.next],
      ["last", info.last],
    ]),
  ].join(", ");
}

/**
 * The Link header of a Memento (RFC 7089 §2.2, as in §4.1.1's example): original, TimeGate, TimeMaps, first, prev,
 * next, last.
 */
export function mementoLinkHeader(urls: MementoUrls, info: MementoInfo): string {
  return linkHeader(urls, info, null);
}

/**
 * The Link header of a TimeGate's redirect, as RFC 7089 §4.1.1's example
 * has it: original, TimeMaps, the memento selected (with its datetime:
 * pywb takes its candidates from this header), and first/prev/next/last
 * around it.
 */
export function timegateLinkHeader(urls: MementoUrls, info: MementoInfo): string {
  return linkHeader(urls, info, info.self);
}
