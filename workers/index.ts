/**
 * Entry point of the one Worker (`main` in wrangler.toml). Durable Object
 * classes are re-exported from here as they land in `durable-objects/`.
 */
import "../src/codec/install-worker.ts";
import { app } from "./app.ts";
import { runCronPass } from "../src/follow/cron-pass.ts";

export { PageStore } from "../durable-objects/page-store.ts";
export { TierCache } from "../durable-objects/tier-cache.ts";
export { PurgeQueue } from "../durable-objects/purge-queue.ts";
export { Fanout } from "../durable-objects/fanout.ts";
export { PageDirectory } from "../durable-objects/page-directory.ts";
export { QueuePool } from "../durable-objects/queue-pool.ts";
export { PurgeAudit } from "../durable-objects/purge-audit.ts";
export { DashboardSessions } from "../durable-objects/dashboard-sessions.ts";
export { WikiFollower } from "../durable-objects/wiki-follower.ts";

export default {
  fetch: app.fetch,
  // The Cron Trigger (wrangler.toml [triggers]): one bounded pass of the wiki follower.
  scheduled(_controller, env, ctx) {
    ctx.waitUntil(runCronPass(env));
  },
} satisfies ExportedHandler<Env>;
