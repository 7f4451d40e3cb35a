/**
 * A request body counted against a LIMITS entry as it is read, chunked or
 * not (Hono's body-limit): past it, 413 `request_too_large` naming the
 * limit, before the route sees a byte. JSON and form bodies are counted
 * against their limits the same way (./json-body.ts, ./form-body.ts).
 *
 * @example
 * devCodecRoutes.post("/dev/codec/gzip", limitBody("http.maxDevCodecBodyBytes"), handler);
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { limitValue, type LimitName } from "../../src/limits.ts";
import { ProblemError } from "../../src/http/problem.ts";

export type BytesLimit = LimitName & `${string}Bytes`;

/** Counts a body against `limit` (a LIMITS entry) as it is read (Hono's body-limit). */
export function limitBody(limit: BytesLimit): MiddlewareHandler {
  return bodyLimit({
    maxSize: limitValue(limit),
    onError: () => {
      throw tooLarge(limit);
    },
  });
}

/** The 413 a body past `limit` gets. */
export function tooLarge(limit: BytesLimit): ProblemError {
  return new ProblemError({
    status: 413,
    code: "request_too_large",
    detail: `the request body is larger than ${limitValue(limit)} bytes`,
    limit,
  });
}
