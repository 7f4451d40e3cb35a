/**
 * A browse page's two steps before its handler: the page's one URL
 * (canonical-title.ts: a non-canonical title is redirected, a canonical one
 * set as `ref`), then the colo its reads go through (with-colo.ts).
 *
 * @example
 * browseRoutes.get("/page/:title/compare", canonicalPage(() => "/compare"), handler);
 */
import type { Context, MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import type { PageRef } from "../../src/page/page-ref.ts";
import type { AppEnv } from "../app-env.ts";
import { canonicalTitle } from "./canonical-title.ts";
import { withColo } from "./with-colo.ts";

export function canonicalPage<E extends AppEnv & { Variables: { ref: PageRef } }>(
  rest: (c: Context<E>) => string,
  prefix: "/page" | "/view" = "/page",
): MiddlewareHandler<E> {
  return every(canonicalTitle<E>(rest, prefix), withColo);
}
