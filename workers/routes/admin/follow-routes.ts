/**
 * Operator view of the deployment's wiki follower, mounted at /api (write- or
 * purge-scope token).
 *
 *   GET /api/follow   the followed wiki (FOLLOW_WIKI_API), its cursor, the pass running now
 *                     (its lease), and the last pass's counts or error; {"wiki": null} when none is set
 */
import { Hono } from "hono";
import { wikiFollowerOf } from "../../../src/bindings.ts";
import { followSettings } from "../../../src/follow/cron-pass.ts";
import type { FollowStatusBody } from "../../../src/wire.ts";
import type { AppEnv } from "../../app-env.ts";
import { requireScope } from "../../middleware/require-scope.ts";

export const followRoutes = new Hono<AppEnv>();

followRoutes.get("/follow", requireScope("write", "purge"), async (c) => {
  const settings = followSettings(c.env);
  if (!settings) return c.json({ wiki: null } satisfies FollowStatusBody);
  const status = await wikiFollowerOf(c.env, settings.wiki).status();
  return c.json({ wiki: settings.wiki, ...status } satisfies FollowStatusBody);
});
