/**
 * Sends one selected representation (its coding already chosen and its
 * ETag already that coding's): preconditions first (304/412), then Range
 * (206/416), then HEAD, which keeps every header of the GET, Content-Length
 * included, and drops only the body. Content-Length is always the length
 * of what is sent.
 *
 * @example
 * return serveRepresentation(c.req.raw, { status: 200, headers, body });
 */
import { HTTPException } from "hono/http-exception";
import { ProblemError } from "../http/problem.ts";
import { precondition } from "./conditional.ts";
import { selectRange } from "./range.ts";

export interface Representation {
  status: number;
  headers: Headers;
  body: Uint8Array;
  /**
   * HEAD only: the body given is not the one a GET would send (its coding
   * was skipped to spare the work), so Content-Length is left out, as
   * RFC 9110 §8.6 allows for HEAD, rather than sent wrong.
   */
  lengthUnknown?: boolean;
}

/**
 * A 304 carries the validators and caching fields (RFC 9110 §15.4.5) and
 * whatever else the response said about the resource (links, Memento
 * datetimes, debug headers), but no field describing a body it does not have.
 */
const NOT_ON_304 = [
  "content-type",
  "content-length",
  "content-encoding",
  "content-range",
  "content-language",
  "content-disposition",
  "accept-ranges",
];

/** Response init for a body whose coding is ours: the runtime must send the bytes as they are. */
export function asIs(status: number, headers: Headers): ResponseInit {
  return headers.has("content-encoding") ? { status, headers, encodeBody: "manual" } : { status, headers };
}

/** What the checks leave to send: a 304, or the whole body, or one slice of it, with the status that goes with it. */
type Served =
  { kind: "not-modified" } | { kind: "whole"; status: number } | { kind: "partial"; start: number; end: number };

/**
 * Preconditions, then Range, for a body of `length` bytes; `headers` gains what the outcome needs (304's removals,
 * Accept-Ranges, Content-Range).
 */
function check(request: Request, status: number, headers: Headers, length: number): Served {
  const { method } = request;
  // Preconditions and ranges are about a representation that exists (2xx, RFC 9110 §13.2.1), and only
  // reads are checked here: a write's precondition must hold before its change, which only its route can check.
  if (status !== 200 || (method !== "GET" && method !== "HEAD")) return { kind: "whole", status };
  const validators = { etag: headers.get("etag"), lastModified: headers.get("last-modified") };
  const outcome = precondition(method, request.headers, validators);
  if (outcome === "not-modified") {
    for (const name of NOT_ON_304) headers.delete(name);
    return { kind: "not-modified" };
  }
  if (outcome === "failed") throw preconditionFailed();
  headers.set("accept-ranges", "bytes");
  const range = selectRange(method, request.headers, length, validators);
  if (range.kind === "unsatisfiable") throw rangeNotSatisfiable(length, headers);
  if (range.kind === "full") return { kind: "whole", status };
  headers.set("content-range", `bytes ${range.start}-${range.end}/${length}`);
  return range;
}

export function serveRepresentation(request: Request, rep: Representation): Response {
  const { method } = request;
  const headers = new Headers(rep.headers);
  const served = check(request, rep.status, headers, rep.body.byteLength);
  if (served.kind === "not-modified") return new Response(null, { status: 304, headers });
  const status = served.kind === "partial" ? 206 : served.status;
  const body = served.kind === "partial" ? rep.body.subarray(served.start, served.end + 1) : rep.body;
  if (rep.lengthUnknown && method === "HEAD") headers.delete("content-length");
  else headers.set("content-length", String(body.byteLength));
  return new Response(method === "HEAD" ? null : body, asIs(status, headers));
}

/** A representation whose body is still a stream of known length (a lower-tier hit, src/tiers/lower-tier.ts). */
export interface StreamedRepresentation {
  status: number;
  headers: Headers;
  stream: ReadableStream<Uint8Array>;
  length: number;
}

/**
 * As {@link serveRepresentation}, for a body not yet read: a 304, a HEAD, a 412 or a 416 cancels it
 * unread, a whole body is passed on as the stream it is, and only a Range reads it, to cut its slice.
 */
export async function serveStreamed(request: Request, rep: StreamedRepresentation): Promise<Response> {
  const headers = new Headers(rep.headers);
  let served: Served;
  try {
    served = check(request, rep.status, headers, rep.length);
  } catch (err) {
    await rep.stream.cancel();
    throw err;
  }
  if (served.kind === "not-modified") {
    await rep.stream.cancel();
    return new Response(null, { status: 304, headers });
  }
  if (served.kind === "partial") {
    const bytes = new Uint8Array(await new Response(rep.stream).arrayBuffer());
    const body = bytes.subarray(served.start, served.end + 1);
    headers.set("content-length", String(body.byteLength));
    return new Response(body, asIs(206, headers));
  }
  headers.set("content-length", String(rep.length));
  if (request.method === "HEAD") {
    await rep.stream.cancel();
    return new Response(null, asIs(served.status, headers));
  }
  return new Response(rep.stream, asIs(served.status, headers));
}

function preconditionFailed(): ProblemError {
  return new ProblemError({
    status: 412,
    code: "precondition_failed",
    title: "Precondition Failed",
    detail: "If-Match or If-Unmodified-Since does not hold for the current representation",
  });
}

/** 416 names the representation's length in Content-Range, and keeps the Vary and ETag a cache needs. */
function rangeNotSatisfiable(length: number, from: Headers): HTTPException {
  const res = new ProblemError({
    status: 416,
    code: "range_not_satisfiable",
    title: "Range Not Satisfiable",
    detail: `no requested range starts inside the ${length}-byte representation`,
    extensions: { length },
  }).toResponse();
  res.headers.set("content-range", `bytes */${length}`);
  for (const name of ["vary", "etag", "x-request-id"]) {
    const value = from.get(name);
    if (value !== null) res.headers.set(name, value);
  }
  return new HTTPException(416, { res });
}
