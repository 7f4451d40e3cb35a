/**
 * Negotiates the content coding of one response and sends it: br, gzip or
 * identity from Accept-Encoding (406 when the client refuses them all), the
 * coded body taken from what was made in advance (a revision's stored br)
 * or made now (mid-quality br, the platform's gzip), the coding's own ETag,
 * `Vary: Accept-Encoding`, then preconditions, Range and HEAD (./serve.ts).
 * Used by the compression middleware for every built response, and by the
 * read routes for revisions with their stored bodies.
 *
 * @example
 * return serveCoded(c.req.raw, { status: 200, headers, body }, answer.encoded);
 */
import { LIMITS } from "../limits.ts";
import { ProblemError } from "../http/problem.ts";
import { chooseCoding, clientAcceptEncoding, type Coding } from "./accept-encoding.ts";
import { isCompressible } from "./compressible.ts";
import { codedEtag } from "./etag.ts";
import { serveRepresentation, type Representation } from "./serve.ts";
import { addVary } from "./vary.ts";
import { brotliForWire, gzipForWire } from "./wire-encode.ts";

/** Coded bodies made in advance. */
export interface StoredCodings {
  br?: Uint8Array;
}

/**
 * The codings offered for a body: a stored br, plus whatever is cheap enough to make now (nothing for a
 * body too small to gain, too big to code per request, or not text), then identity.
 */
export function offeredCodings(headers: Headers, size: number, stored?: StoredCodings): Coding[] {
  const makeable =
    isCompressible(headers.get("content-type")) &&
    size >= LIMITS.wire.minCompressBytes &&
    size <= LIMITS.wire.maxCompressBytes;
  if (stored?.br) return makeable ? ["br", "gzip", "identity"] : ["br", "identity"];
  return makeable ? ["br", "gzip", "identity"] : ["identity"];
}

/** A Range asks for a slice: it is cut from a stored body or from identity, never from a body coded only to cut it. */
function readyForRange(request: Request, offered: Coding[], stored?: StoredCodings): Coding[] {
  if (!request.headers.has("range") || request.method !== "GET") return offered;
  return offered.filter((c) => c === "identity" || (c === "br" && stored?.br));
}

export function notAcceptable(): ProblemError {
  return new ProblemError({
    status: 406,
    code: "no_acceptable_encoding",
    title: "Not Acceptable",
    detail: "Accept-Encoding refuses every coding this response is available in (br, gzip, identity)",
  });
}

export async function serveCoded(
  request: Request,
  identity: Representation,
  stored?: StoredCodings,
): Promise<Response> {
  const headers = new Headers(identity.headers);
  const offered = offeredCodings(headers, identity.body.byteLength, stored);
  // A body sent as is to everyone needs no Vary, unless it is text: a front line codes that for clients
  // asking for it (Cloudflare's compresses JSON and HTML it is handed as identity), so caches must key on it.
  if (offered.length > 1 || isCompressible(headers.get("content-type"))) addVary(headers, "Accept-Encoding");
  const coding =
    chooseCoding(clientAcceptEncoding(request), readyForRange(request, offered, stored)) ??
    chooseCoding(clientAcceptEncoding(request), offered);
  if (coding === undefined) throw notAcceptable();
  if (coding === "identity")
    return serveRepresentation(request, { status: identity.status, headers, body: identity.body });
  headers.set("content-encoding", coding);
  const etag = headers.get("etag");
  if (etag) headers.set("etag", codedEtag(etag, coding));
  const ready = coding === "br" ? stored?.br : undefined;
  // HEAD: the headers a GET would get, without making a body nobody reads (so without its length).
  if (!ready && request.method === "HEAD")
    return serveRepresentation(request, { status: identity.status, headers, body: identity.body, lengthUnknown: true });
  const body =
    ready ??
    (coding === "br"
      ? brotliForWire(identity.body, LIMITS.wire.dynamicBrotliQuality, headers.get("content-type"))
      : await gzipForWire(identity.body));
  return serveRepresentation(request, { status: identity.status, headers, body });
}
