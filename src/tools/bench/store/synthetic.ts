/**
 * Synthetic page histories of any length for the "read latency does not
 * depend on history length" check, built from `generateDemoPage`.
 *
 * `generateDemoPage` grows its page without bound (about 220 KB per revision
 * by revision 1,000 and 2 MB by 10,000: some 10 GB for a 10,000-revision
 * history), so a long history is made of segments instead: segment k is the
 * last {@link SEGMENT_REVISIONS} revisions of
 * `generateDemoPage(title, seed + k, SEGMENT_SOURCE_REVISIONS, ...)`, and
 * consecutive segments are chained into one history with fresh ids and
 * increasing timestamps. Within a segment each revision is a small edit of
 * the one before, as in real histories; across a boundary the page is
 * rewritten. Every revision of a short and of a long history comes from the
 * same distribution (revisions 90..99 of a generated page, about 20–25 KB of
 * wikitext), so comparing their read latency compares history lengths only.
 *
 * Revisions are generated lazily, one segment at a time.
 *
 * @example
 * for (const rev of syntheticHistory("Bench length 10000", 10_000, 7)) ...
 */
import { generateDemoPage } from "../../demo/history-generator.ts";
import type { NewRevision } from "../../../page/types.ts";

export const SEGMENT_REVISIONS = 10;
export const SEGMENT_SOURCE_REVISIONS = 100;
const FIRST_ID = 1;
/** 2012-01-01T00:00:00Z, then one revision an hour. */
const START_SECONDS = Date.UTC(2012, 0, 1) / 1000;

export function* syntheticHistory(
  title: string,
  count: number,
  seed: number,
): Generator<Omit<NewRevision, "parentId">> {
  let made = 0;
  for (let segment = 0; made < count; segment++) {
    const page = generateDemoPage(title, seed + segment, SEGMENT_SOURCE_REVISIONS, 1);
    for (const rev of page.revisions.slice(-SEGMENT_REVISIONS)) {
      if (made === count) return;
      yield {
        id: FIRST_ID + made,
        timestamp: new Date((START_SECONDS + made * 3600) * 1000).toISOString().replace(".000Z", "Z"),
        contributor: rev.contributor,
        comment: rev.comment,
        model: rev.model,
        text: rev.text,
      };
      made++;
    }
  }
}
