/**
 * The one compression middleware, registered globally in workers/app.ts,
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
import { isCompressible } from "../../src/representation/compressible.ts";
import { serveCoded } from "../../src/representation/serve-coded.ts";
import { variesOn } from "../../src/representation/vary.ts";

const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i;

/** Whether this middleware has anything to decide for `res`. */
function negotiable(res: Response): boolean {
  const h = res.headers;
  if (res.body === null || res.status === 206 || res.status === 304 || res.status < 200 || res.status === 204)
    return false;
  if (h.has("content-encoding") || variesOn(h, "accept-encoding")) return false;
  if (NO_TRANSFORM.test(h.get("cache-control") ?? "")) return false;
  return isCompressible(h.get("content-type"));
}

/**
 * Replaces the response outright: Hono's `c.res = x` would copy the old response's headers (ETag, Content-Length) over
 * the new ones.
 */
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
    replace(c, await serveCoded(c.req.raw, { status: res.status, headers: new Headers(res.headers), body: identity }));
  };
}
