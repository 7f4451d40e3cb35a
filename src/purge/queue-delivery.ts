/**
 * One delivery pass of a PurgeQueue over its lagging pointers whose retry
 * time has come. It pushes to its own region's tiers directly and to every
 * other region through that region's Fanout (or, in "direct" mode, to every
 * tier itself). With more regions than connections, the regions past its
 * connections go in one local call to its own region's Fanout, which hands
 * them on, so no region waits a second round trip. Failures are recorded
 * on the pointer (src/purge/queue-store.ts), which retries on backoff.
 *
 * @example
 * await deliverPass(env, store, (acks) => queue.ack(acks));
 */
import { runLimited } from "../lib/run-limited.ts";
import { fanoutOf, type QueueSelf } from "../bindings.ts";
import { topologyOf, type Region } from "../config/topology.ts";
import { LIMITS } from "../limits.ts";
import { crossRegionHop } from "../tiers/link-latency.ts";
import { applyAt } from "./apply.ts";
import { neededBy } from "./plan.ts";
import type { PointerRow, QueueStore } from "./queue-store.ts";
import type { PurgeTarget } from "./targets.ts";

type Ack = (acks: Array<{ target: string; seq: number }>) => void;

export async function deliverPass(env: Env, store: QueueStore, ack: Ack): Promise<void> {
  const self = store.self();
  const topology = topologyOf(env);
  const now = Date.now();
  const lastSeq = store.lastSeq();
  const direct: PointerRow[] = [];
  const byRegion = new Map<string, PointerRow[]>();
  for (const p of store.lagging(lastSeq)) {
    const tier = JSON.parse(p.tier) as PurgeTarget;
    const viaFanout = tier.region !== self.region && topology.purgeDelivery === "fanout";
    // A Fanout's pointer does not wait for its acknowledgement to hand on newer events (pipelining),
    // unless it is backing off after a failure. Each batch starts at the acknowledged sequence, so
    // none leaves a gap, and re-applying what is still in flight is harmless.
    const due = p.next_at <= now || (viaFanout && p.attempts === 0 && p.sent < lastSeq);
    if (!due) continue;
    if (viaFanout) byRegion.set(tier.region, [...(byRegion.get(tier.region) ?? []), p]);
    else direct.push(p);
  }
  // Other regions first: their hop is the longest, and their Fanouts then work while this queue serves its own region.
  // More of them than connections would take a second round trip; the ones past the connections (but one) go
  // in one call to this region's Fanout, a local hop, which hands them on with connections of its own.
  const remote = [...byRegion.entries()] as Array<[Region, PointerRow[]]>;
  const ownConnections =
    remote.length > LIMITS.purge.maxConcurrentDeliveries ? LIMITS.purge.maxConcurrentDeliveries - 1 : remote.length;
  const relayed = remote.slice(ownConnections);
  const jobs: Array<() => Promise<void>> = [
    ...remote.slice(0, ownConnections).map(
      ([region, pointers]) =>
        () =>
          deliverVia(env, store, self, region, pointers),
    ),
    ...(relayed.length > 0 ? [() => deliverRelayed(env, store, self, relayed)] : []),
    ...direct.map((p) => () => deliverTo(env, store, self, p, ack)),
  ];
  await runLimited(jobs, LIMITS.purge.maxConcurrentDeliveries, (job) => job());
}

async function deliverTo(env: Env, store: QueueStore, self: QueueSelf, p: PointerRow, ack: Ack): Promise<void> {
  const tier = JSON.parse(p.tier) as PurgeTarget;
  try {
    await crossRegionHop(env, self.region, tier.region);
    const applied = await applyAt(env, tier, self.name, neededBy(p.acked, store.batchFor(p.acked)));
    ack([{ target: p.target, seq: applied }]);
  } catch (err) {
    store.failed(p, err);
  }
}

async function deliverVia(
  env: Env,
  store: QueueStore,
  self: QueueSelf,
  region: Region,
  pointers: PointerRow[],
): Promise<void> {
  const batch = store.fanoutBatch(self, region, pointers);
  const waitUntil = Date.now() + LIMITS.purge.fanoutAckTimeoutMs;
  try {
    await crossRegionHop(env, self.region, region);
    await fanoutOf(env, region).deliver(batch);
    store.handedOn(batch, waitUntil);
  } catch (err) {
    for (const p of pointers) store.failed(p, err);
  }
}

/** Several regions' batches through this region's own Fanout, which hands them on (see Fanout.relay). */
async function deliverRelayed(
  env: Env,
  store: QueueStore,
  self: QueueSelf,
  regions: Array<[Region, PointerRow[]]>,
): Promise<void> {
  const batches = regions.map(([region, pointers]) => store.fanoutBatch(self, region, pointers));
  const waitUntil = Date.now() + LIMITS.purge.fanoutAckTimeoutMs;
  try {
    await fanoutOf(env, self.region).relay(batches);
    for (const batch of batches) store.handedOn(batch, waitUntil);
  } catch (err) {
    for (const [, pointers] of regions) for (const p of pointers) store.failed(p, err);
  }
}
