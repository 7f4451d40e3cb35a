/**
 * Operator view of the tiers, mounted at /api (write- or purge-scope token).
 *
 *   GET /api/tiers         per tier: hit/miss/stale/revalidated counters, purge lag; per queue: load;
 *                          per region: queue pool size and the autoscaler's recent decisions
 */
import { Hono } from "hono";
import type { TiersBody } from "../../../src/wire.ts";
import type { AppEnv } from "../../app-env.ts";
import { requireScope } from "../../middleware/require-scope.ts";
import { tierOverview } from "../../../src/dashboard/tier-overview.ts";
import { lowerCounters } from "../../../src/tiers/lower-tier.ts";

export const tierRoutes = new Hono<AppEnv>();
tierRoutes.use(requireScope("write", "purge"));

tierRoutes.get("/tiers", async (c) => {
  // Per isolate: the lower tier is each data centre's Cache API, with no shared place to count.
  return c.json({ lower: { isolateCounters: lowerCounters }, ...(await tierOverview(c.env)) } satisfies TiersBody);
});
