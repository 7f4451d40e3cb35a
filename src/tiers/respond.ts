/**
 * The one place a read through the tiers becomes what a route answers: the
 * JSON read routes, the Memento routes and the HTML pages all come here, so
 * the headers an answer goes out with (where it came from, the request id,
 * the archived-content sandbox, the dictionary a text revision offers), the
 * rule that a 5xx shows the client only the origin's problem and this
 * request's id (details stay in the log) are each written once. Bodies are
 * read as typed values by src/origin/answer-body.ts, never parsed here.
 *
 * - `respond`: the answer, its coding negotiated (a revision's br was made
 *   once and comes with it), with ETag, preconditions, Range and HEAD.
 * - `respondDelta`: a revision as dcb against the dictionary the client holds.
 * - `respondIdentity`: sent identity, for the front line to code (exports).
 * - `respondAsIs`: sent as it came (TimeMaps and the problems beside them).
 * - `problemOf`: a non-200 answer as the `ProblemError` it carries, for a
 *   route that renders its own page and lets the error handler show the rest.
 * - `respondRedirect`: a 302 made from an answer (the TimeGate's).
 * - `okJson`: a 200 answer's JSON as its kind's type, any other thrown as its problem.
 * - `renderedHeaders`: where the answer came from and its Cache-Tag, for a page made from it.
 *
 * @example
 * const through = await readThroughTiers(c.env, c.executionCtx, c.get("colo"), query);
 * return respond({ request: c.req.raw, requestId: c.get("requestId") }, through);
 */
import { ProblemError, type ProblemStatus } from "../http/problem.ts";
import {
  answerJson,
  answerProblem,
  type AnswerBodies,
  type AnswerProblem,
  type JsonKind,
} from "../origin/answer-body.ts";
import { sha256Hex } from "../lib/digests.ts";
import { serverTiming } from "../http/server-timing.ts";
import { sandboxArchived } from "../representation/archived-content.ts";
import { isCompressible } from "../representation/compressible.ts";
import { useAsDictionary } from "../representation/dictionary.ts";
import { codedEtag } from "../representation/etag.ts";
import { serveCoded } from "../representation/serve-coded.ts";
import { serveRepresentation, serveStreamed } from "../representation/serve.ts";
import { addVary } from "../representation/vary.ts";
import type { ReadThrough, UnreadThrough } from "./chain.ts";

/** Who asked: the request answered and its id (`hono/request-id`). */
export interface Asker {
  request: Request;
  requestId: string;
}

/** Where an answer came from (debug headers): the tier that answered and the colo read at. */
function provenance(through: ReadThrough | UnreadThrough): Record<string, string> {
  return { "x-palimpsest-tier": through.servedBy, "x-palimpsest-colo": through.colo };
}

/** The headers every answer read through the tiers goes out with: the answer's own, and where it came from. */
function answerHeaders(asker: Asker, through: ReadThrough | UnreadThrough): Headers {
  const { entry } = through;
  const headers = new Headers(entry.headers);
  for (const [name, value] of Object.entries(provenance(through))) headers.set(name, value);
  // A debug header, as the two above: where the read's time went, hop by hop (src/http/server-timing.ts).
  const timing = serverTiming(through.timings);
  if (timing !== null) headers.set("server-timing", timing);
  // No Age (RFC 9111 §4.2.3): every tier's copy is kept current by purges, so to a cache downstream the
  // answer is as fresh as if the origin had just confirmed it. Its time in a tier would make the latest,
  // history and TimeMaps look stale on arrival ("Age: 1302" beside "max-age=60").
  headers.set("x-request-id", asker.requestId);
  // Archived bytes never run as the archive (src/representation/archived-content.ts).
  sandboxArchived(headers);
  // Every text revision offers itself as the dictionary for the page's other revisions (RFC 9842): even
  // one too small to be worth compressing makes its successor's delta tiny.
  if (entry.status === 200 && entry.revisionId !== undefined && isCompressible(entry.headers["content-type"] ?? "")) {
    headers.set("use-as-dictionary", useAsDictionary(entry.page));
    addVary(headers, "Accept-Encoding", "Available-Dictionary");
  }
  return headers;
}

/**
 * A 5xx is logged with the request id, the one thing of this request the client's copy adds to the origin's problem.
 */
function serverError(asker: Asker, status: number, problem: AnswerProblem): void {
  console.error("read failed", {
    requestId: asker.requestId,
    path: new URL(asker.request.url).pathname,
    status,
    code: problem.code,
  });
}

/** The body to send: a 5xx's problem plus this request's id for the report; anything else as given. */
function sentBody(asker: Asker, status: number, body: Uint8Array): Uint8Array {
  if (status < 500) return body;
  const problem = answerProblem({ body });
  serverError(asker, status, problem);
  return new TextEncoder().encode(JSON.stringify({ ...problem, requestId: asker.requestId }));
}

/**
 * The answer as a response: its coding negotiated (a revision's br body was
 * made once and comes from the tiers with it; anything else is coded now),
 * then preconditions, Range and HEAD against what is sent. `rebuilt` is a
 * body the route made from the answer's (a history page with its links).
 */
export async function respond(asker: Asker, through: ReadThrough, rebuilt?: Uint8Array): Promise<Response> {
  const { entry } = through;
  const headers = answerHeaders(asker, through);
  const body = sentBody(asker, entry.status, rebuilt ?? entry.body);
  // A history page is rebuilt per request: its tag is its bytes' digest.
  if (entry.status === 200 && !headers.has("etag")) headers.set("etag", `"${await sha256Hex(body)}"`);
  // Stored coded bodies are the answer's own; a rebuilt body (history) has none.
  const stored = body === entry.body ? entry.encoded : undefined;
  return serveCoded(asker.request, { status: entry.status, headers, body }, stored);
}

/** A revision as a dcb delta against the dictionary the client holds: a representation per dictionary. */
export function respondDelta(asker: Asker, through: ReadThrough, dictionary: string, dcb: Uint8Array): Response {
  const headers = answerHeaders(asker, through);
  headers.set("content-encoding", "dcb");
  const etag = headers.get("etag");
  if (etag) headers.set("etag", codedEtag(etag, `dcb-${dictionary.slice(0, 16)}`));
  return serveRepresentation(asker.request, { status: 200, headers, body: dcb });
}

/**
 * An answer sent identity whatever the client accepts, with its ETag, preconditions, Range and HEAD:
 * an export, which the front line (Cloudflare's, or wrangler dev's) codes as it passes, never this
 * Worker, so a tier hit costs no compression. A lower-tier hit left unread (`UnreadThrough`) is
 * answered 304 without reading its body and sent as the Cache API's stream, not copied.
 * `edit` sets what the route adds (absolute links).
 */
export async function respondIdentity(
  asker: Asker,
  through: ReadThrough | UnreadThrough,
  edit?: (headers: Headers) => void,
): Promise<Response> {
  const { entry } = through;
  const headers = answerHeaders(asker, through);
  edit?.(headers);
  // Named, so the compression middleware leaves it alone and caches downstream key on what the front line codes.
  addVary(headers, "Accept-Encoding");
  if ("stored" in through) {
    const { stream, length } = through.stored;
    return serveStreamed(asker.request, { status: entry.status, headers, stream, length });
  }
  return serveRepresentation(asker.request, {
    status: entry.status,
    headers,
    body: sentBody(asker, entry.status, through.entry.body),
  });
}

/** An answer sent as it came through the tiers (TimeMaps, and problems); the app's compression codes it. */
export function respondAsIs(asker: Asker, through: ReadThrough): Response {
  const { entry } = through;
  const headers = answerHeaders(asker, through);
  const body = sentBody(asker, entry.status, entry.body);
  headers.set("content-length", String(body.byteLength));
  return new Response(body, { status: entry.status, headers });
}

/** A non-200 answer as the problem it carries (its Retry-After kept), for the error handler to show. */
export function problemOf(asker: Asker, through: ReadThrough): ProblemError {
  const { entry } = through;
  const problem = answerProblem(entry);
  if (entry.status >= 500) serverError(asker, entry.status, problem);
  const { type: _type, status: _status, title, detail, code, limit: _limit, ...extensions } = problem;
  const retryAfter = entry.headers["retry-after"];
  return new ProblemError({
    status: entry.status as ProblemStatus,
    code: code ?? `http_${entry.status}`,
    title: title ?? "Error",
    ...(detail === undefined ? {} : { detail }),
    extensions: { ...extensions, ...(retryAfter ? { retryAfterSeconds: Number(retryAfter) } : {}) },
  });
}

/**
 * A 302 made from an answer (the TimeGate's, to the memento the answer
 * chose): the route's own headers (Link, Cache-Control), where the answer
 * came from and the request id, as every answer sends them, and no body.
 */
export function respondRedirect(
  asker: Asker,
  through: ReadThrough,
  location: string,
  own: Record<string, string>,
): Response {
  const headers = new Headers({ ...own, ...provenance(through), location, "content-length": "0" });
  headers.set("x-request-id", asker.requestId);
  return new Response(null, { status: 302, headers });
}

/**
 * A 200 answer's JSON as its kind's type (src/origin/answer-body.ts), for a
 * route that renders its own page from it; any other answer is thrown as the
 * problem it carries, for the error handler to show.
 */
export function okJson<K extends JsonKind>(asker: Asker, through: ReadThrough, kind: K): AnswerBodies[K] {
  if (through.entry.status !== 200) throw problemOf(asker, through);
  return answerJson(kind, through.entry);
}

/**
 * The headers a page rendered from an answer goes out with: where the answer
 * came from, as every answer sends it, and its Cache-Tag, so a purge by tag
 * reaches the page too.
 */
export function renderedHeaders(through: ReadThrough): Record<string, string> {
  const tag = through.entry.headers["cache-tag"];
  return { ...provenance(through), ...(tag ? { "cache-tag": tag } : {}) };
}
