/**
 * A region's queue pool under load and after it: the autoscaler grows the
 * pool when its queues go over the band, shrinks it when the load is gone,
 * and neither loses nor reorders an event any queue held. Time is moved on
 * with Date.now (the test, the queues and the pool share this isolate), so
 * the load window and the cooldown pass without waiting for them.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { QueueLoad } from "../../../src/purge/queue-store.ts";
import type { QueuePool } from "../../../durable-objects/queue-pool.ts";
import { TierCache } from "../../../durable-objects/tier-cache.ts";
import {
  allTiers,
  parsePurgeId,
  purgeQueueFor,
  purgeQueueOf,
  queuePoolOf,
  tierCacheOf,
  tierName,
  type QueueSelf,
} from "../../../src/bindings.ts";
import { topologyOf, type Region } from "../../../src/config/topology.ts";
import { LIMITS } from "../../../src/limits.ts";
import { healthSeries } from "../../../src/dashboard/health-series.ts";
import type { QueuedBatch } from "../../../src/purge/apply.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { holdPurges } from "../support/hold-purges.ts";
import { readFrom } from "../support/tiers.ts";
import { TOKENS, bearer } from "../support/tokens.ts";

const REGION: Region = "weur";
const config = topologyOf(env).queuePool;
const pool = queuePoolOf(env, REGION);
const queue = (index: number): QueueSelf => ({ name: `${REGION}-q${index}`, region: REGION });
const stub = (q: QueueSelf) => purgeQueueOf(env, q);

let offset = 0;
const realNow = Date.now.bind(Date);
vi.spyOn(Date, "now").mockImplementation(() => realNow() + offset);
/** Moves every clock in this isolate (test, queues, pool) forward. */
const advance = (ms: number) => void (offset += ms);

/** Every batch each TierCache applied, per queue, in the order it applied them. */
const applied = new Map<string, number[][]>();
const original = TierCache.prototype.applyPurges;
TierCache.prototype.applyPurges = function (this: TierCache, parts: QueuedBatch[]) {
  const last = original.call(this, parts);
  for (const { queue: name, batch } of parts) {
    const key = `${(this as unknown as { ctx: DurableObjectState }).ctx.id.toString()} ${name}`;
    applied.set(key, [...(applied.get(key) ?? []), batch.events.map((e) => e.seq)]);
  }
  return last;
};
afterAll(() => {
  TierCache.prototype.applyPurges = original;
  vi.restoreAllMocks();
});

/** The pool's alarm would tick on its own every sampleIntervalMs of real time; the test ticks it itself. */
const quietPool = () => runInDurableObject(pool, (_: QueuePool, state) => state.storage.deleteAlarm());

async function enqueue(q: QueueSelf, page: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++)
    ids.push((await stub(q).enqueue({ page, scope: { kind: "mutable" }, version: i + 1, region: REGION }, q)).id);
  return ids;
}

/** Drives the queues' retry alarms until each has delivered everything it holds to every target. */
async function drained(queues: QueueSelf[], timeoutMs = 40_000): Promise<QueueLoad[]> {
  const until = realNow() + timeoutMs;
  for (;;) {
    const loads = await Promise.all(queues.map((q) => stub(q).load()));
    if (loads.every((l) => l.backlog === 0)) return loads;
    if (realNow() > until) throw new Error(`still pending: ${loads.map((l) => `${l.queue} ${l.backlog}`).join(", ")}`);
    for (const q of queues) await runDurableObjectAlarm(stub(q));
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Each TierCache applied `q`'s events 1..last, each once, in order: redeliveries it skipped aside. */
function expectAppliedInOrder(q: QueueSelf, last: number): void {
  const tiers = [...applied.entries()].filter(([key]) => key.endsWith(` ${q.name}`));
  expect(tiers.length, `TierCaches that applied ${q.name}`).toBe(30);
  for (const [key, batches] of tiers) {
    let high = 0;
    for (const seqs of batches) {
      for (const seq of seqs) {
        if (seq <= high) continue; // a redelivery: the tier skips what it already applied
        expect(seq, `${key}: after ${high}`).toBe(high + 1);
        high = seq;
      }
    }
    expect(high, key).toBe(last);
  }
}

async function purgeIdsOfNewPages(count: number): Promise<Set<string>> {
  const names = new Set<string>();
  for (let i = 0; i < count; i++) names.add((await purgeQueueFor(env, REGION, `Fresh_page_${offset}_${i}`)).name);
  return names;
}

describe("a region's queue pool", () => {
  it("samples its region's tiers: hit ratio per interval from counter deltas", async () => {
    await appendOk("Pool_health_page", linearHistory(2));
    await pool.tick(REGION);
    const members = allTiers(env).filter((t) => t.region === REGION && t.level === "regional");
    const before = await Promise.all(members.map((t) => tierCacheOf(env, t).stats()));
    // Three colos of the region, one regional member for the key: a miss, then hits.
    for (const colo of ["LHR", "CDG", "AMS", "FRA"])
      expect((await readFrom(colo, "/page/Pool_health_page/1")).status).toBe(200);
    await pool.tick(REGION);
    const after = await Promise.all(members.map((t) => tierCacheOf(env, t).stats()));
    const series = await healthSeries(env);
    await quietPool();
    const delta = (i: number, name: string) => (after[i]!.counters[name] ?? 0) - (before[i]!.counters[name] ?? 0);
    const expected = members.map((_, i) =>
      delta(i, "hit") + delta(i, "miss") > 0 ? delta(i, "hit") / (delta(i, "hit") + delta(i, "miss")) : null,
    );
    expect(expected.filter((r) => r !== null).length).toBeGreaterThan(0);
    expect(members.map((t) => series.tiers.find((s) => s.tier === tierName(t))!.points.at(-1)!.hitRatio)).toEqual(
      expected,
    );
    expect(series.stepMs).toBe(config.sampleIntervalMs);
    const queues = series.queues.find((q) => q.region === REGION)!;
    expect(queues.points.map((p) => p.poolSize)).toEqual([config.min, config.min]);
  });

  it("grows by one queue when its queues go over the band, and delivers everything they held, in order", async () => {
    expect(await pool.activeSize(REGION)).toBe(config.min);
    await quietPool();
    // Deliveries held: every event stays pending, so the backlog crosses maxBacklog.
    const hold = holdPurges("Pool_held");
    const overBacklog = config.maxBacklog + 10;
    const ids = [...(await enqueue(queue(0), "Pool_held", overBacklog)), ...(await enqueue(queue(1), "Pool_held", 20))];
    const before = await Promise.all([stub(queue(0)).load(), stub(queue(1)).load()]);
    expect(before.map((l) => l.backlog)).toEqual([overBacklog, 20]);
    expect(before[0].eventsPerSecond).toBeCloseTo(overBacklog / (LIMITS.pool.loadWindowMs / 1000), 5);

    const grow = await pool.tick(REGION);
    console.log("grow tick", JSON.stringify({ from: grow.from, to: grow.to, reason: grow.reason, loads: grow.loads }));
    expect(grow).toMatchObject({ action: "grow", from: config.min, to: config.min + 1 });
    expect(grow.reason).toContain(`${REGION}-q0 backlog ${overBacklog} > ${config.maxBacklog}`);
    expect(await pool.activeSize(REGION)).toBe(config.min + 1);
    await quietPool();
    // Still cooling down: a second tick on the same load does not grow again.
    expect((await pool.tick(REGION)).action).toBe("hold");

    // New pages now spread over the new queue as well (once this isolate's cached size expires).
    advance(LIMITS.pool.membershipCacheMs + 1);
    expect([...(await purgeIdsOfNewPages(60))].sort()).toEqual([0, 1, 2].map((i) => `${REGION}-q${i}`));
    await quietPool();

    hold.release();
    const loads = await drained([queue(0), queue(1)]);
    expect(loads.map((l) => l.lastSeq)).toEqual([overBacklog, 20]);
    for (const l of loads) for (const p of l.pointers) expect(p.acked, `${l.queue} → ${p.tier}`).toBe(l.lastSeq);
    expectAppliedInOrder(queue(0), overBacklog);
    expectAppliedInOrder(queue(1), 20);
    const status = await stub(queue(0)).status(overBacklog);
    expect(status?.acknowledged).toBe(true);
    expect(ids).toHaveLength(overBacklog + 20);
    const latency = (await stub(queue(0)).load()).latencyMs;
    expect(latency?.events).toBe(overBacklog);
  });

  it("shrinks once the load is gone; the queue that left still answers for its purges and delivers them", async () => {
    const leaving = queue(config.min);
    const hold = holdPurges("Pool_leaving");
    const ids = await enqueue(leaving, "Pool_leaving", 5);
    // Past the load window and the cooldown: every queue is now under the band.
    advance(LIMITS.pool.loadWindowMs + LIMITS.pool.cooldownMs);
    await pool.activeSize(REGION); // sets the alarm the shrink runs on
    expect(await runDurableObjectAlarm(pool)).toBe(true);
    const overview = await pool.overview(REGION);
    await quietPool();
    console.log("shrink tick", JSON.stringify(overview.lastTick));
    expect(overview).toMatchObject({ size: config.min, queues: config.min + 1 });
    expect(overview.decisions.map((d) => [d.from, d.to])).toEqual([
      [config.min + 1, config.min],
      [config.min, config.min + 1],
    ]);
    expect(overview.decisions[0]!.loads.find((l) => l.queue === leaving.name)).toEqual({
      queue: leaving.name,
      eventsPerSecond: 0,
      backlog: 5,
    });

    // Its purge ids still resolve, pending; no new page goes to it.
    expect(parsePurgeId(ids[4]!, topologyOf(env))).toMatchObject({ ok: true, queue: leaving });
    const pending = await request(`/api/purges/${ids[4]}`, { headers: bearer(TOKENS.operator) });
    expect(pending.status).toBe(200);
    expect(await pending.json()).toMatchObject({ state: "pending" });
    advance(LIMITS.pool.membershipCacheMs + 1);
    expect([...(await purgeIdsOfNewPages(60))].sort()).toEqual([`${REGION}-q0`, `${REGION}-q1`]);

    const tiers = await request("/api/tiers", { headers: bearer(TOKENS.operator) });
    await quietPool();
    expect(tiers.status).toBe(200);
    const body = await tiers.json<{
      pools: Array<{ region: string; size: number; decisions: unknown[] }>;
      queues: Array<{ queue: string; active: boolean; backlog: number }>;
    }>();
    expect(body.pools.find((p) => p.region === REGION)).toMatchObject({
      size: config.min,
      decisions: [
        { from: config.min + 1, to: config.min },
        { from: config.min, to: config.min + 1 },
      ],
    });
    expect(body.pools).toHaveLength(9);
    expect(body.queues.find((q) => q.queue === leaving.name)).toMatchObject({ active: false, backlog: 5 });

    hold.release();
    await drained([leaving]);
    expectAppliedInOrder(leaving, 5);
    const done = await request(`/api/purges/${ids[4]}`, { headers: bearer(TOKENS.operator) });
    expect(await done.json()).toMatchObject({ state: "complete" });
    // Drained, it is no longer sampled.
    await pool.tick(REGION);
    expect((await pool.overview(REGION)).queues).toBe(config.min);
  });

  it("stops waking an hour after its last traffic or viewer, and starts again when asked", async () => {
    const alarmOf = () => runInDurableObject(pool, (_: QueuePool, state) => state.storage.getAlarm());
    await pool.activeSize(REGION);
    expect(await alarmOf()).not.toBeNull();
    advance(LIMITS.pool.idleAfterMs + 1);
    expect(await runDurableObjectAlarm(pool)).toBe(true);
    expect(await alarmOf()).toBeNull();
    await pool.activeSize(REGION);
    expect(await alarmOf()).not.toBeNull();
  });
});
