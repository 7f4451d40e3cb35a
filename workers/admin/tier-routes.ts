/**
 * Operator views of the tiers and purges, mounted at /api (write-scope token).
 *
 *   GET /api/purges/{id}   each tier's acknowledgement of one purge (`<queue>:<seq>`)
 *   GET /api/tiers         per tier: hit/miss/stale/revalidated counters, purge lag; per queue: depth
 */
import { Hono } from "hono";
import { allTiers, parsePurgeId, purgeQueueNames, purgeQueueOf, tierCacheOf, tierName } from "../../src/bindings.ts";
import { topologyOf, type Region } from "../../src/config/topology.ts";
import type { AppEnv } from "../app-env.ts";
import { requireScope } from "../../src/http/auth.ts";
import { ProblemError } from "../../src/http/problem.ts";
import { lowerCounters } from "../../src/tiers/lower-tier.ts";

export const tierRoutes = new Hono<AppEnv>();
tierRoutes.use(requireScope("write"));

tierRoutes.get("/purges/:id", async (c) => {
  const id = c.req.param("id");
  const parsed = parsePurgeId(id, topologyOf(c.env));
  if (!parsed.ok && parsed.reason === "malformed") {
    throw new ProblemError({ status: 400, code: "invalid_purge_id", title: "Bad Request", detail: `${id.slice(0, 80)} is not a purge id (<queue>:<seq>)` });
  }
  const status = parsed.ok ? await purgeQueueOf(c.env, parsed.queue).status(parsed.seq) : null;
  if (!status?.event) throw new ProblemError({ status: 404, code: "purge_not_found", title: "Not Found", detail: `no purge ${id} in the retained log` });
  return c.json(status);
});

tierRoutes.get("/tiers", async (c) => {
  const topology = topologyOf(c.env);
  const tiers = await Promise.all(
    allTiers(c.env).map(async (t) => ({ tier: tierName(t), level: t.level, region: t.region, ...(await tierCacheOf(c.env, t).stats()) })),
  );
  const queues = await Promise.all(
    (Object.keys(topology.regions) as Region[]).flatMap((region) =>
      purgeQueueNames(region, topology).map(async (name) => ({ region, ...(await purgeQueueOf(c.env, { name, region }).load()), queue: name })),
    ),
  );
  // Purge lag per tier: how far its pointer trails each queue's head.
  const lag = new Map<string, number>();
  for (const q of queues) for (const p of q.pointers) lag.set(p.tier, Math.max(lag.get(p.tier) ?? 0, p.lag));
  return c.json({
    // Per isolate: the lower tier is each data centre's Cache API, with no shared place to count.
    lower: { isolateCounters: lowerCounters },
    tiers: tiers.map((t) => ({ ...t, purgeLag: lag.get(t.tier) ?? 0 })),
    queues: queues.map(({ pointers: _pointers, ...q }) => q),
  });
});
