/** Resolves a title from a URL to its canonical form: the title, and the key that names the page everywhere. */
import { ProblemError } from "../http/problem.ts";
import { normalizeTitle } from "./title.ts";

export interface PageRef {
  title: string;
  /** Underscore form: the URL segment and the Durable Object name. */
  key: string;
  /** The page's id on its wiki, when a write knows it (an import's `<page><id>`, the follower's pageid). */
  wikiPageId?: number;
}

export function pageRef(raw: string): PageRef {
  const t = normalizeTitle(raw);
  if (!t.ok)
    throw new ProblemError({
      status: 400,
      code: "invalid_title",
      detail: t.reason,
      extensions: { page: raw },
    });
  return { title: t.title, key: t.key };
}

/**
 * A title as one URL path segment: percent-encoded, so a subpage's `/` is
 * `%2F` (as MediaWiki's REST API writes it), with `:` left readable.
 */
export function titleSegment(key: string): string {
  return encodeURIComponent(key).replace(/%3A/gi, ":");
}
