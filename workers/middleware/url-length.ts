/**
 * Refuses a URL longer than `LIMITS.http.maxUrlLength` (414, naming the
 * limit) before any route parses it, so no route and no cache key ever
 * handles an unbounded path or query.
 *
 * @example
 * app.use(urlLength); // right after requestId()
 */
import type { MiddlewareHandler } from "hono";
import { ProblemError } from "../../src/http/problem.ts";
import { LIMITS } from "../../src/limits.ts";

export const urlLength: MiddlewareHandler = async (c, next) => {
  if (c.req.url.length > LIMITS.http.maxUrlLength) {
    throw new ProblemError({
      status: 414,
      code: "url_too_long",
      title: "URL too long",
      detail: `The request URL is ${c.req.url.length} characters long.`,
      limit: "http.maxUrlLength",
    });
  }
  await next();
};
