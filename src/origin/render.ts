/**
 * Produces the origin's {@link Answer} for a read: revision bodies with their
 * caching headers, history pages as JSON, and problems as uncached answers.
 * The tiers store exactly this; the edge turns it into a Response.
 */
import { pageStoreOf } from "../bindings.ts";
import { topologyOf } from "../config/topology.ts";
import { ProblemError } from "../http/problem.ts";
import { storeProblem } from "../page/store-problem.ts";
import { CACHE_CONTROL } from "../representation/cache-control.ts";
import { revisionEncodings } from "./revision-encodings.ts";
import { servedContentType } from "../page/content-model.ts";
import { pageExists } from "../page/directory.ts";
import type { RevisionSelector } from "../page/types.ts";
import type { Answer, OriginQuery } from "./answer.ts";
import { renderCompare } from "./compare.ts";
import { renderDelta } from "./delta.ts";
import { renderExport } from "./export-answer.ts";
import { readRevision, type RevisionRead } from "./page-origin.ts";
import { renderMementoIndex, renderMementoInfo, renderTimemap } from "./memento-answers.ts";
import { renderTimeline } from "./timeline-answer.ts";
import type { HistoryAnswer } from "./answer-body.ts";
import { answerTags } from "./tags.ts";
import { formatHttpDate } from "../http/datetime.ts";
import { titleSegment } from "../page/page-ref.ts";
import { HopTimer } from "../http/server-timing.ts";

function problemAnswer(err: ProblemError, query: OriginQuery, negativeTtl?: number): Answer {
  const tags = answerTags(query.ref.key, "application/problem+json");
  const headers: Record<string, string> = {
    "content-type": "application/problem+json",
    "cache-control": negativeTtl ? `public, max-age=${negativeTtl}` : "no-store",
    "cache-tag": tags.join(","),
  };
  const retryAfter = err.extensions.retryAfterSeconds;
  if (typeof retryAfter === "number") headers["retry-after"] = String(retryAfter);
  return {
    status: err.status,
    headers,
    body: new TextEncoder().encode(JSON.stringify(err)),
    version: 0,
    page: query.ref.key,
    mutable: true,
    storedAt: Date.now(),
    tags,
    ...(negativeTtl ? { negative: true } : {}),
  };
}

/** The answer for a title nobody wrote: a 404 the tiers may keep briefly (TOPOLOGY.notFoundSeconds). */
export function notFoundAnswer(env: Env, query: OriginQuery): Answer {
  const err = new ProblemError({
    status: 404,
    code: "page_not_found",
    detail: "no such page in the archive",
    extensions: { page: query.ref.title },
  });
  return problemAnswer(err, query, topologyOf(env).notFoundSeconds);
}

/** `timer` takes the render's hops (src/http/server-timing.ts); a revision read's are the finest. */
export async function renderOrigin(env: Env, query: OriginQuery, timer = new HopTimer()): Promise<Answer> {
  // Titles nobody wrote are answered here, without waking (and so creating) their PageStore.
  if (!(await timer.time("directory", () => pageExists(env, query.ref.key)))) return notFoundAnswer(env, query);
  try {
    switch (query.kind) {
      case "memento":
        return await renderMementoInfo(env, query);
      case "mementos":
        return await renderMementoIndex(env, query);
      case "timemap":
        return await renderTimemap(env, query);
      case "compare":
        return await renderCompare(env, query);
      case "timeline":
        return await renderTimeline(env, query);
      case "export":
        return await renderExport(env, query);
      case "delta":
        return await renderDelta(env, query, () =>
          renderRevision(env, { kind: "revision", ref: query.ref, id: query.id }, false),
        );
      case "history":
        return await renderHistory(env, query);
      case "revision":
      case "latest":
        // Its br body is made for the tiers to keep; with none (TOPOLOGY disabled) it would be made and dropped
        // on every read, and a client asking br gets it coded per response (src/representation/serve-coded.ts).
        return await renderRevision(env, query, topologyOf(env).enabled, timer);
      default:
        return query satisfies never;
    }
  } catch (err) {
    return thrownAnswer(env, query, err);
  }
}

/** A problem thrown while rendering `query`, as the answer for it; any other error is thrown on. */
export function thrownAnswer(env: Env, query: OriginQuery, err: unknown): Answer {
  // Problems travel as (uncached) answers: across Durable Object RPC an exception would lose its type.
  // A refused dcb pair is kept briefly, like an unwritten title, so its repeats stop at the tiers.
  if (err instanceof ProblemError && err.code === "dictionary_not_usable")
    return problemAnswer(err, query, topologyOf(env).notFoundSeconds);
  if (err instanceof ProblemError) return problemAnswer(err, query);
  throw err;
}

/** `encode`: also make the revision's coded bodies (a delta answer needs only the identity body). */
async function renderRevision(
  env: Env,
  query: Extract<OriginQuery, { kind: "revision" | "latest" }>,
  encode = true,
  timer = new HopTimer(),
): Promise<Answer> {
  const selector: RevisionSelector =
    query.kind === "revision"
      ? { kind: "id", id: query.id }
      : query.at === undefined
        ? { kind: "latest" }
        : { kind: "at", epochSeconds: query.at };
  return revisionAnswer(query, await readRevision(env, query.ref, selector, timer), encode, timer);
}

/**
 * The answer for a revision read: its body, with its caching headers, tags and (with `encode`) its br body, made under
 * `timer`'s encode hop.
 */
export function revisionAnswer(
  query: Extract<OriginQuery, { kind: "revision" | "latest" }>,
  read: RevisionRead,
  encode = true,
  timer = new HopTimer(),
): Answer {
  const r = read.revision;
  const immutable = query.kind === "revision";
  const contentType = servedContentType(r.model, r.format);
  // Tagged by the recorded format (type:text/x-wiki), which says more than the served type.
  const tags = answerTags(query.ref.key, r.format || contentType, r.tags);
  return {
    status: 200,
    headers: {
      "content-type": contentType,
      "x-content-model": r.model,
      "cache-tag": tags.join(","),
      etag: `"${r.sha256}"`,
      "last-modified": new Date(r.timestamp).toUTCString(),
      "x-revision-id": String(r.id),
      "cache-control": immutable ? CACHE_CONTROL.revision : CACHE_CONTROL.changing,
      "x-read-cost": `blob-reads=${read.stats.blobReads}; decodes=${read.stats.decodes}; decoded-bytes=${read.stats.decodedBytes}`,
      // `?at=` answers a memento (RFC 7089 §2.1.2): its datetime, and the revision's own URL (RFC 9110 §8.7).
      ...(query.kind === "latest" && query.at !== undefined
        ? {
            "memento-datetime": formatHttpDate(Date.parse(r.timestamp) / 1000),
            "content-location": `/page/${titleSegment(query.ref.key)}/${r.id}`,
          }
        : {}),
    },
    body: read.body,
    ...(encode ? { encoded: timer.timeSync("encode", () => revisionEncodings(read.body, contentType)) } : {}),
    version: read.version,
    page: query.ref.key,
    mutable: !immutable,
    storedAt: Date.now(),
    revisionId: r.id,
    tags,
  };
}

/** A latest answer as the immutable answer for its revision, which it also is. */
export function asRevisionAnswer(answer: Answer): Answer {
  return { ...answer, headers: { ...answer.headers, "cache-control": CACHE_CONTROL.revision }, mutable: false };
}

async function renderHistory(env: Env, query: Extract<OriginQuery, { kind: "history" }>): Promise<Answer> {
  const { cursor, ref } = query;
  const seq = cursor === undefined ? undefined : Number(cursor.slice(1));
  const page = await pageStoreOf(env, ref.key).history(
    cursor?.startsWith("b") ? { before: seq } : cursor?.startsWith("a") ? { after: seq } : {},
    query.limit,
  );
  if (!("revisions" in page)) throw storeProblem(page, ref.title);
  const body: HistoryAnswer = {
    page: page.title,
    total: page.total,
    revisions: page.revisions,
    cursors: { older: page.older, newer: page.newer },
  };
  const tags = answerTags(ref.key, "application/json");
  return {
    status: 200,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": CACHE_CONTROL.changing,
      "cache-tag": tags.join(","),
    },
    body: new TextEncoder().encode(JSON.stringify(body)),
    version: page.version,
    page: ref.key,
    mutable: true,
    storedAt: Date.now(),
    tags,
  };
}
