/**
 * One URL per page: a non-canonical title (bip_0340 → Bip_0340, a decomposed
 * é → é) is redirected (301) to its page's canonical path, keeping the rest
 * of the path (`rest`) and the query; a canonical one is set as `ref` for the
 * route. The read routes and the browse pages share it; the revision viewer's
 * pages live under `/view/` instead of `/page/` (`prefix`).
 */
import type { Context, Env as HonoEnv, MiddlewareHandler } from "hono";
import { pageRef, titleSegment, type PageRef } from "../../src/page/page-ref.ts";

export function canonicalTitle<E extends HonoEnv & { Variables: { ref: PageRef } }>(
  rest: (c: Context<E>) => string = () => "",
  prefix: "/page" | "/view" = "/page",
): MiddlewareHandler<E> {
  return async (c, next) => {
    const raw = c.req.param("title")!;
    const ref = pageRef(raw);
    if (ref.key !== raw) {
      const url = new URL(c.req.url);
      url.pathname = `${prefix}/${titleSegment(ref.key)}${rest(c)}`;
      return c.redirect(url.toString(), 301);
    }
    c.set("ref", ref);
    await next();
  };
}
