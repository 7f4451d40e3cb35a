/**
 * Canonical cache keys for reads, derived from the query. A key is the path
 * plus the query parameters the route reads, in a fixed order, so
 * equivalent URLs share one entry. The title is percent-encoded as in URLs,
 * so a subpage's `/` (`Help:Contents/Editing`) can never be read as a path
 * separator. Specific revisions are immutable; everything else about a page
 * (latest, history pages, time resolution, Memento links and TimeMaps)
 * changes on a write. Every key of a page starts with `/page/{title}`, so a
 * prefix purge of the page covers them all.
 */
import type { Answer, OriginQuery } from "../origin/answer.ts";
import type { ExportDirection, ExportStart } from "../page/export-types.ts";
import { exportSelection } from "../origin/export-answer.ts";
import { mutableTag, tagsOf, variantsTag } from "../origin/tags.ts";

export interface CacheKey {
  key: string;
  page: string;
  mutable: boolean;
}

const path = (page: string) => `/page/${encodeURIComponent(page)}`;

export function revisionKey(page: string, id: number): CacheKey {
  return { key: `${path(page)}/${id}`, page, mutable: false };
}

export function latestKey(page: string, atEpochSeconds?: number): CacheKey {
  return { key: atEpochSeconds === undefined ? path(page) : `${path(page)}?at=${atEpochSeconds}`, page, mutable: true };
}

export function historyKey(page: string, limit: number, cursor: string | undefined): CacheKey {
  return { key: `${path(page)}/history?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, page, mutable: true };
}

/** A memento's place in time (Link headers, TimeGate answers): changes with every write, as `last memento` does. */
export function mementoKey(page: string, which: { id: number } | { at: number }): CacheKey {
  return {
    key: "id" in which ? `${path(page)}/memento/${which.id}` : `${path(page)}/memento?at=${which.at}`,
    page,
    mutable: true,
  };
}

/** The page's memento index, every revision's place in time: changes with every write, as the TimeMap does. */
export function mementoIndexKey(page: string): CacheKey {
  return { key: `${path(page)}/mementos`, page, mutable: true };
}

/** A TimeMap page, per format and per origin its URIs are written for. */
export function timemapKey(
  page: string,
  format: "link" | "json",
  base: string,
  cursor: { after?: number; before?: number },
): CacheKey {
  const at =
    cursor.after !== undefined
      ? `&after=${cursor.after}`
      : cursor.before !== undefined
        ? `&before=${cursor.before}`
        : "";
  return { key: `${path(page)}/timemap/${format}?base=${encodeURIComponent(base)}${at}`, page, mutable: true };
}

/**
 * The page's years and latest visible revision, with one revision's neighbours when `id` is given: changes with every
 * write.
 */
export function timelineKey(page: string, id: number | undefined): CacheKey {
  return { key: `${path(page)}/timeline${id === undefined ? "" : `/${id}`}`, page, mutable: true };
}

/**
 * What changed between two revisions (a compare page): as immutable as they are; a removal drops it with the page's
 * other keys.
 */
export function compareKey(page: string, from: number, to: number): CacheKey {
  return { key: `${path(page)}/compare/${from}...${to}`, page, mutable: false };
}

/**
 * An anonymous export answer (`/page/{title}/export`): changes with every write, suppression and
 * deletion, as history does. The query in one spelling (a time offset as epoch seconds), so every URL
 * the route reads as the same selection shares the entry.
 */
export function exportKey(page: string, start: ExportStart | null, dir: ExportDirection, limit: number): CacheKey {
  return { key: `${path(page)}/export?${exportSelection(start, dir, limit)}`, page, mutable: true };
}

/**
 * A revision coded against a dictionary (RFC 9842 dcb): as immutable as the revision, one entry per dictionary, under
 * the revision's key.
 */
export function deltaKey(page: string, id: number, dictionary: string): CacheKey {
  return { key: `${revisionKey(page, id).key}?dcb=${dictionary}`, page, mutable: false };
}

/**
 * The revision key a dcb variant's key extends, or undefined for any other key: purging a revision's URL purges its
 * variants.
 */
export function variantBase(key: string): string | undefined {
  const at = key.indexOf("?dcb=");
  return at === -1 ? undefined : key.slice(0, at);
}

/**
 * The cache tag every dcb variant of a revision carries, so purging the
 * revision by URL reaches its variants where only tags and exact URLs
 * can be purged (Cloudflare's purge API for the production lower tier).
 * Compare answers carry it for both their revisions (src/origin/compare.ts).
 */
export { variantsTag };

/** Whether a key is a specific revision's (`/page/{title}/{id}`), the only kind with variants. */
export function isRevisionKey(key: string): boolean {
  return /^\/page\/[^/?]+\/\d+$/.test(key);
}

export function cacheKeyOf(query: OriginQuery): CacheKey {
  switch (query.kind) {
    case "delta":
      return deltaKey(query.ref.key, query.id, query.dictionary);
    case "revision":
      return revisionKey(query.ref.key, query.id);
    case "latest":
      return latestKey(query.ref.key, query.at);
    case "memento":
      return mementoKey(query.ref.key, query.which);
    case "mementos":
      return mementoIndexKey(query.ref.key);
    case "timemap":
      return timemapKey(query.ref.key, query.format, query.base, query.cursor);
    case "compare":
      return compareKey(query.ref.key, query.from, query.to);
    case "timeline":
      return timelineKey(query.ref.key, query.id);
    case "export":
      return exportKey(query.ref.key, query.start, query.dir, query.limit);
    case "history":
      return historyKey(query.ref.key, query.limit, query.cursor);
    default:
      return query satisfies never;
  }
}

/**
 * Cache-Tags of an entry, for Cloudflare's purge-by-tag: its answer's tags,
 * and a mutable one's (latest, history, time resolution, 404s) own tag,
 * which a write purges.
 */
export function cacheTagsOf(entry: Pick<Answer, "page" | "mutable" | "tags" | "revisionId" | "encoded">): string[] {
  const tags = [...tagsOf(entry)];
  if (entry.mutable) tags.push(mutableTag(entry.page));
  // A dcb variant also names its revision: purging the revision's URL must reach it where tags are all there is.
  if (entry.encoded?.dcb && entry.revisionId !== undefined)
    tags.push(variantsTag(revisionKey(entry.page, entry.revisionId).key));
  return tags;
}
