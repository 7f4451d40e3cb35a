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
import { topologyOf, type Region } from "../../src/config/topology.ts";

export const tierRoutes = new Hono<{ Bindings: Env }>();
tierRoutes.use(requireWriteScope());

tierRoutes.get("/purges/:id", async (c) => {
  const id = c.req.param("id");
  const m = /^([a-z]+)-q(\d{1,2}):(\d{1,15})$/.exec(id);
  if (!m) throw new ProblemError({ status: 400, code: "invalid_purge_id", title: "Bad Request", detail: `${id.slice(0, 80)} is not a purge id (<queue>:<seq>)` });
  const topology = topologyOf(c.env);
  const notFound = () => new ProblemError({ status: 404, code: "purge_not_found", title: "Not Found", detail: `no purge ${id} in the retained log` });
  // Only queues the topology has: a made-up name must not wake (and so create) a Durable Object.
  if (!(m[1]! in topology.regions) || Number(m[2]) >= topology.queuesPerRegion) throw notFound();
  const status = await purgeQueueStub(c.env, `${m[1]}-q${Number(m[2])}`).status(Number(m[3]));
  if (!status?.event) throw notFound();
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
    // Per isolate: the lower tier is each data centre's Cache API, with no shared place to count.
    lower: { isolateCounters: lowerCounters },
    tiers: tiers.map((t) => ({ ...t, purgeLag: lag.get(t.tier) ?? 0 })),
    queues: queues.map(({ pointers: _pointers, ...q }) => q),
  });
});
