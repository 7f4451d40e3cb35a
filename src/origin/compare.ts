/**
 * The origin's answer for a compare page: what changed between two
 * revisions of a page, as JSON (src/compare/diff.ts CompareAnswer), which
 * the edge renders as HTML. The diff is computed here once per pair and the
 * answer is kept in every tier, like the revisions it is made of: immutable,
 * so only a removal drops it.
 *
 * How a removal reaches it:
 * - its version is the lower of the two reads' page versions, so if either
 *   revision is suppressed (or the page deleted) while it is being made, the
 *   removal's version floor is above it and no tier keeps or serves it;
 * - in TierCaches and simulated lower tiers a removal raises the page's floor
 *   for every key (src/purge/apply.ts), this one included;
 * - at Cloudflare's purge API (src/purge/zone-purge.ts) a suppression purges
 *   the revision's `variants:` tag, which this answer carries for both of its
 *   revisions, and a deletion purges the page's tag, which it carries too.
 */
import { compareRevisions, type ComparedRevision } from "../compare/diff.ts";
import { servedContentType } from "../page/content-model.ts";
import { CACHE_CONTROL } from "../representation/cache-control.ts";
import type { Answer, OriginQuery } from "./answer.ts";
import { readRevision, type RevisionRead } from "./page-origin.ts";
import { answerTags, revisionVariantsTag } from "./tags.ts";

type CompareQuery = Extract<OriginQuery, { kind: "compare" }>;

function compared(read: RevisionRead): ComparedRevision {
  const r = read.revision;
  return { id: r.id, body: read.body, contentType: servedContentType(r.model, r.format), timestamp: r.timestamp };
}

/** Throws the ProblemError of a revision that is missing or removed (render.ts turns it into an uncached answer). */
export async function renderCompare(env: Env, query: CompareQuery): Promise<Answer> {
  const { ref, from, to } = query;
  const [a, b] = await Promise.all([
    readRevision(env, ref, { kind: "id", id: from }),
    readRevision(env, ref, { kind: "id", id: to }),
  ]);
  const body = new TextEncoder().encode(JSON.stringify(compareRevisions(compared(a), compared(b))));
  const tags = [
    ...new Set([
      ...answerTags(ref.key, "application/json"),
      revisionVariantsTag(ref.key, from),
      revisionVariantsTag(ref.key, to),
    ]),
  ];
  return {
    status: 200,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": CACHE_CONTROL.revision,
      "cache-tag": tags.join(","),
    },
    body,
    version: Math.min(a.version, b.version),
    page: ref.key,
    mutable: false,
    storedAt: Date.now(),
    tags,
  };
}
