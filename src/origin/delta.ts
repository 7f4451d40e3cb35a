/**
 * The origin's answer for a revision coded as RFC 9842 `dcb` against a
 * dictionary the client holds: the page's revision whose body has the
 * SHA-256 the client named, if it is one of the target's nearest
 * predecessors or the latest (src/page-store/dictionary-window.ts). Made once per (revision, dictionary) and kept
 * in the tiers under its own key (src/tiers/cache-key.ts deltaKey), with
 * the revision's own headers and only its dcb body. A hash that names no
 * revision of this page, or bodies too big to code against each other,
 * answer 404 `dictionary_not_usable`, which the tiers keep briefly
 * (TOPOLOGY.notFoundSeconds) and the edge turns into plain br.
 */
import { pageStoreOf } from "../bindings.ts";
import { BROTLI_DEFAULTS, dcbCompress } from "../codec/index.ts";
import { ProblemError } from "../http/problem.ts";
import { revisionBrotliQuality } from "./revision-encodings.ts";
import { LIMITS } from "../limits.ts";
import type { Answer, OriginQuery } from "./answer.ts";
import { readRevision } from "./page-origin.ts";
import { revisionVariantsTag, tagsOf } from "./tags.ts";

type DeltaQuery = Extract<OriginQuery, { kind: "delta" }>;

function notUsable(detail: string): ProblemError {
  return new ProblemError({ status: 404, code: "dictionary_not_usable", title: "Dictionary not usable", detail });
}

/** `revisionAnswer` renders the target revision's answer without coded bodies (render.ts). */
export async function renderDelta(env: Env, query: DeltaQuery, revisionAnswer: () => Promise<Answer>): Promise<Answer> {
  const dictionaryId = await pageStoreOf(env, query.ref.key).dictionaryFor(query.dictionary, query.id);
  if (dictionaryId === null)
    throw notUsable(
      `no revision among the ${LIMITS.wire.dcbPredecessors} before this one, nor the latest, has a body with that SHA-256`,
    );
  const [target, dictionary] = await Promise.all([
    revisionAnswer(),
    readRevision(env, query.ref, { kind: "id", id: dictionaryId }),
  ]);
  const size = target.body.byteLength;
  if (
    size > LIMITS.tiers.maxEntryBytes ||
    dictionary.body.byteLength > LIMITS.codec.brotliMaxDictionaryBytes ||
    dictionary.body.byteLength === 0
  ) {
    throw notUsable("the revision or the dictionary is too big to code against each other");
  }
  const lgwin = Math.min(BROTLI_DEFAULTS.lgwin, Math.max(10, Math.ceil(Math.log2(size + 1))));
  const dcb = await dcbCompress(target.body, dictionary.body, { quality: revisionBrotliQuality(size), lgwin });
  // Its Cache-Tag also names its revision (src/tiers/cache-key.ts cacheTagsOf), so a purge of the revision's URL
  // reaches it where tags are all there is, and its dictionary's: once that is suppressed, a cached dcb answer would
  // tell whoever names a guessed text's SHA-256 that the guess is right.
  const tags = [...tagsOf(target), revisionVariantsTag(query.ref.key, dictionaryId)];
  return {
    ...target,
    headers: { ...target.headers, "cache-tag": tags.join(",") },
    tags,
    body: new Uint8Array(0),
    encoded: { dcb },
  };
}
