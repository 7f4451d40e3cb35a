/**
 * Operator view of the deployment's wiki follower, mounted at /api
 * (purge-scope token: the operator's scope; a write-only token is a writer,
 * and what a followed wiki made the follower say is for operators).
 *
 *   GET  /api/follow         the followed wiki (FOLLOW_WIKI_API), its cursor, the pass running now
 *                            (its lease), the last pass's counts or error, and the pages the archive
 *                            refused, which the follower skipped; {"wiki": null} when none is set
 *   POST /api/follow/retry   {"title": "<the wiki's title>"} or {"all": true}: the next pass tries
 *                            that skipped page (or all of them) again; 202 with how many it names,
 *                            404 when it names none
 */
import { Hono } from "hono";
import { z } from "zod";
import { wikiFollowerOf } from "../../../src/bindings.ts";
import { followSettings } from "../../../src/follow/cron-pass.ts";
import { ProblemError } from "../../../src/http/problem.ts";
import { validated } from "../../middleware/validated.ts";
import { LIMITS } from "../../../src/limits.ts";
import type { FollowRetryBody, FollowStatusBody } from "../../../src/wire.ts";
import type { AppEnv } from "../../app-env.ts";
import { jsonBody } from "../../middleware/json-body.ts";
import { requireScope } from "../../middleware/require-scope.ts";

export const followRoutes = new Hono<AppEnv>();

followRoutes.get("/follow", requireScope("purge"), async (c) => {
  const settings = followSettings(c.env);
  if (!settings) return c.json({ wiki: null } satisfies FollowStatusBody);
  const status = await wikiFollowerOf(c.env, settings.wiki).status();
  return c.json({ wiki: settings.wiki, ...status } satisfies FollowStatusBody);
});

const retryBody = z.union([
  z.object({ title: z.string().min(1).max(LIMITS.follow.maxSkippedTextChars) }).strict(),
  z.object({ all: z.literal(true) }).strict(),
]);

followRoutes.post(
  "/follow/retry",
  requireScope("purge"),
  jsonBody("http.maxSmallBodyBytes"),
  validated("json", retryBody, "retry"),
  async (c) => {
    const settings = followSettings(c.env);
    if (!settings)
      throw new ProblemError({
        status: 404,
        code: "follow_off",
        detail: "this archive follows no wiki (FOLLOW_WIKI_API is empty)",
      });
    const body = c.req.valid("json");
    const asked = await wikiFollowerOf(c.env, settings.wiki).askRetry("all" in body ? "all" : { title: body.title });
    if (asked === 0)
      throw new ProblemError({
        status: 404,
        code: "skip_not_found",
        detail: "all" in body ? "no page is skipped" : "no skipped page has that title",
      });
    return c.json({ wiki: settings.wiki, asked } satisfies FollowRetryBody, 202);
  },
);
