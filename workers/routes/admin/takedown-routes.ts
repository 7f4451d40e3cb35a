/**
 * The takedown log, mounted at /api (purge scope, as the purge audit log:
 * who took what down and why is for operators; a write-only token takes
 * down but does not read the log).
 *
 *   GET /api/takedowns[?page=<title>][&before=<cursor>]
 *       hides and shows of revisions' fields, page deletions and restores, newest first,
 *       purge.takedownPageSize a page; `page` keeps one page's (any spelling of its title)
 *
 * The takedowns themselves are the write API's (workers/routes/admin/write-routes.ts) and the
 * dashboard's; each is recorded by src/writes/page-writes.ts.
 */
import { Hono } from "hono";
import { z } from "zod";
import { validated } from "../../middleware/validated.ts";
import { pageRef } from "../../../src/page/page-ref.ts";
import { listTakedowns } from "../../../src/purge/takedown-log.ts";
import type { TakedownPageBody } from "../../../src/wire.ts";
import type { AppEnv } from "../../app-env.ts";
import { requireScope, type AuthVariables } from "../../middleware/require-scope.ts";

export const takedownRoutes = new Hono<AppEnv & { Variables: AuthVariables }>();

takedownRoutes.get(
  "/takedowns",
  requireScope("purge"),
  validated("query", z.object({ page: z.string().min(1).optional(), before: z.string().optional() }), "takedowns"),
  async (c) => {
    const { page, before } = c.req.valid("query");
    // Any spelling of the title finds the entries, which name it canonically (a bad title is a 400).
    const title = page === undefined ? undefined : pageRef(page).title;
    const found = await listTakedowns(c.env, { page: title, before });
    let next: string | null = null;
    if (found.next !== null) {
      const url = new URL("/api/takedowns", c.req.url);
      if (title !== undefined) url.searchParams.set("page", title);
      url.searchParams.set("before", found.next);
      next = url.toString();
      c.header("link", `<${next}>; rel="next"`);
    }
    c.header("cache-control", "no-store");
    return c.json({ ...found, links: { next } } satisfies TakedownPageBody);
  },
);
