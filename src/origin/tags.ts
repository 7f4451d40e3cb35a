/**
 * The cache tags of an answer, which every tier indexes and Cloudflare's
 * purge-by-tag reads from `Cache-Tag`: the page (in its URL form, so a
 * title with a comma stays one tag), its namespace number, the media type,
 * and the tags its writer set on the revision.
 */
import { namespaceOf } from "../page/namespace.ts";
import { titleSegment } from "../page/page-ref.ts";
import type { Answer } from "./answer.ts";

export const pageTag = (pageKey: string) => `page:${titleSegment(pageKey)}`;
/** Only a page's mutable answers (latest, history, time resolution): what a write purges at Cloudflare. */
export const mutableTag = (pageKey: string) => `mutable:${titleSegment(pageKey)}`;

/**
 * A revision's variants (its dcb bodies, the compare answers made from it): what a purge of the
 * revision's URL names at Cloudflare, where tags are all a purge can reach by.
 */
export function variantsTag(revisionPath: string): string {
  return `variants:${revisionPath}`;
}

/** The variants tag of revision `id` of a page: its path as a cache key (`/page/{title}/{id}`). */
export const revisionVariantsTag = (pageKey: string, id: number) =>
  variantsTag(`/page/${encodeURIComponent(pageKey)}/${id}`);

export function answerTags(pageKey: string, contentType: string, writerTags: readonly string[] = []): string[] {
  const mediaType = contentType.split(";", 1)[0]!.trim().toLowerCase();
  return [...new Set([pageTag(pageKey), `ns:${namespaceOf(pageKey)}`, `type:${mediaType}`, ...writerTags])];
}

/** An answer's tags; entries kept before answers carried tags have at least their page's. */
export function tagsOf(answer: Pick<Answer, "tags" | "page">): readonly string[] {
  return answer.tags ?? [pageTag(answer.page)];
}
