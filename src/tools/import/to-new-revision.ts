/**
 * The write API's shape for a revision read from an export, chained to
 * `parentId`. Fields are copied one by one so an export's own extras
 * (its title, its original parent) never reach the request.
 */
import type { NewRevision } from "../../page/types.ts";

export function toNewRevision(
  rev: Omit<NewRevision, "parentId">,
  parentId: number | null,
  sha1: string | null = rev.sha1 ?? null,
): NewRevision {
  return {
    id: rev.id,
    parentId,
    timestamp: rev.timestamp,
    contributor: rev.contributor,
    comment: rev.comment,
    model: rev.model,
    format: rev.format,
    text: rev.text,
    sha1,
    // Cache tags only when there are some: a request without them is what it was before tags were exported.
    ...(rev.tags && rev.tags.length > 0 ? { tags: rev.tags } : {}),
    // Stored hidden as the export hides it, in the same write: never public for a moment.
    ...(rev.hidden ? { hidden: rev.hidden } : {}),
    ...(rev.textMissing ? { textMissing: true } : {}),
  };
}
