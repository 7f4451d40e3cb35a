/**
 * Entry point of the one Worker (`main` in wrangler.toml). Durable Object
 * classes are re-exported from here as they land in `durable-objects/`.
 */
import "../src/codec/install-worker.ts";
import { app } from "./app.ts";

export { PageStore } from "../durable-objects/page-store.ts";
export { TierCache } from "../durable-objects/tier-cache.ts";
export { PurgeQueue } from "../durable-objects/purge-queue.ts";
export { Fanout } from "../durable-objects/fanout.ts";
export { PageDirectory } from "../durable-objects/page-directory.ts";
export { QueuePool } from "../durable-objects/queue-pool.ts";
export { PurgeAudit } from "../durable-objects/purge-audit.ts";
export { DashboardSessions } from "../durable-objects/dashboard-sessions.ts";

export default { fetch: app.fetch } satisfies ExportedHandler<Env>;
