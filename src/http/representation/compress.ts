/**
 * The one compression middleware, registered globally in workers/edge/app.ts,
 * for every response a route builds in full (history, timemaps, HTML pages,
 * problem bodies, the dashboard): picks br, gzip or identity from
 * Accept-Encoding, encodes at mid quality (LIMITS.wire.dynamicBrotliQuality),
 * gives the coded body its own ETag (`"…-br"`: a different representation),
 * adds `Vary: Accept-Encoding`, then answers preconditions and Range against
 * what it will send (./serve.ts). Routes keep writing plain `c.json()` /
 * `c.html()`.
 *
 * Left alone: bodiless responses and 206/304s, bodies already coded
 * (Content-Encoding set) or negotiated by their route (`Vary` names
 * Accept-Encoding: the revision routes serve stored br and dcb bodies),
 * `Cache-Control: no-transform`, media types not worth compressing, bodies
 * under LIMITS.wire.minCompressBytes or over LIMITS.wire.maxCompressBytes.
 * A HEAD gets the headers a GET would, without the encoding work (and so
 * without Content-Length).
 *
 * @example
 * app.use(compress());
 * app.get("/x", (c) => c.json(big));   // → Content-Encoding: br for `Accept-Encoding: br`
 */
import type { Context, MiddlewareHandler } from "hono";
import { LIMITS } from "../../limits.ts";
import { ProblemError } from "../problem.ts";
import { chooseCoding, type Coding } from "./accept-encoding.ts";
import { isCompressible } from "./compressible.ts";
import { codedEtag } from "./etag.ts";
import { serveRepresentation } from "./serve.ts";
import { addVary, variesOn } from "./vary.ts";
import { brotliForWire, brotliModeFor, gzipForWire } from "./wire-encode.ts";

const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i;

/** Whether this middleware has anything to decide for `res`. */
function negotiable(res: Response): boolean {
  const h = res.headers;
  if (res.body === null || res.status === 206 || res.status === 304 || res.status < 200 || res.status === 204) return false;
  if (h.has("content-encoding") || variesOn(h, "accept-encoding")) return false;
  if (NO_TRANSFORM.test(h.get("cache-control") ?? "")) return false;
  return isCompressible(h.get("content-type"));
}

/** The codings offered for a body of this size. */
function offeredFor(size: number): Coding[] {
  return size < LIMITS.wire.minCompressBytes || size > LIMITS.wire.maxCompressBytes ? ["identity"] : ["br", "gzip", "identity"];
}

export function notAcceptable(): ProblemError {
  return new ProblemError({
    status: 406,
    code: "no_acceptable_encoding",
    title: "Not Acceptable",
    detail: "Accept-Encoding refuses every coding this response is available in (br, gzip, identity)",
  });
}

/** Replaces the response outright: Hono's `c.res = x` would copy the old response's headers (ETag, Content-Length) over the new ones. */
function replace(c: Context, res: Response): void {
  c.res = undefined;
  c.res = res;
}

export function compress(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    if (!negotiable(res)) return;
    const identity = new Uint8Array(await res.arrayBuffer());
    const headers = new Headers(res.headers);
    const offered = offeredFor(identity.byteLength);
    // A body too small or too big to code is the same for every client: no Vary.
    if (offered.length > 1) addVary(headers, "Accept-Encoding");
    const coding = chooseCoding(c.req.header("accept-encoding"), offered);
    if (coding === undefined) throw notAcceptable();
    if (coding === "identity") return replace(c, serveRepresentation(c.req.raw, { status: res.status, headers, body: identity }));
    headers.set("content-encoding", coding);
    const etag = headers.get("etag");
    if (etag) headers.set("etag", codedEtag(etag, coding));
    if (c.req.method === "HEAD") return replace(c, serveRepresentation(c.req.raw, { status: res.status, headers, body: identity, lengthUnknown: true }));
    const body = coding === "br" ? brotliForWire(identity, LIMITS.wire.dynamicBrotliQuality, brotliModeFor(headers.get("content-type"))) : await gzipForWire(identity);
    replace(c, serveRepresentation(c.req.raw, { status: res.status, headers, body }));
  };
}
