/**
 * Operator views of the tiers and purges, mounted at /api (write-scope token).
 *
 *   GET /api/purges/{id}   each tier's acknowledgement of one purge (`<queue>:<seq>`)
 *   GET /api/tiers         per tier: hit/miss/stale/revalidated counters, purge lag; per queue: depth
 */
import { Hono } from "hono";
import { requireWriteScope } from "../../src/http/auth.ts";
import { ProblemError } from "../../src/http/problem.ts";
import { purgeQueueNames, purgeQueueStub } from "../../src/purge/queue-pick.ts";
import { lowerCounters } from "../../src/tiers/lower-tier.ts";
import { allTiers, tierName, tierStub } from "../../src/tiers/tier-names.ts";
import { topologyOf, type Region } from "../../src/tiers/topology.ts";

export const tierRoutes = new Hono<{ Bindings: Env }>();
tierRoutes.use(requireWriteScope());

tierRoutes.get("/purges/:id", async (c) => {
  const id = c.req.param("id");
  const m = /^([a-z]+-q\d+):(\d+)$/.exec(id);
  if (!m) throw new ProblemError({ status: 400, code: "invalid_purge_id", title: "Bad Request", detail: `${id} is not a purge id (<queue>:<seq>)` });
  const status = await purgeQueueStub(c.env, m[1]!).status(Number(m[2]));
  if (!status.event) throw new ProblemError({ status: 404, code: "purge_not_found", title: "Not Found", detail: `no purge ${id} in the retained log` });
  return c.json(status);
});

tierRoutes.get("/tiers", async (c) => {
  const topology = topologyOf(c.env);
  const tiers = await Promise.all(
    allTiers(c.env).map(async (t) => {
      const stats = await tierStub(c.env, t).stats();
      return { tier: tierName(t), level: t.level, region: t.region, ...stats };
    }),
  );
  const queues = await Promise.all(
    (Object.keys(topology.regions) as Region[]).flatMap((region) =>
      purgeQueueNames(region, topology.queuesPerRegion).map(async (name) => ({ region, ...(await purgeQueueStub(c.env, name).load()), queue: name })),
    ),
  );
  // Purge lag per tier: how far its pointer trails each queue's head.
  const lag = new Map<string, number>();
  for (const q of queues) for (const p of q.pointers) lag.set(p.tier, Math.max(lag.get(p.tier) ?? 0, p.lag));
  return c.json({
    lower: { isolateCounters: lowerCounters },
    tiers: tiers.map((t) => ({ ...t, purgeLag: lag.get(t.tier) ?? 0 })),
    queues: queues.map(({ pointers: _pointers, ...q }) => q),
  });
});
