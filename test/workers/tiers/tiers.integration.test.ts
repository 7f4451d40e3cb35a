import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { PurgeQueue } from "../../../durable-objects/purge-queue.ts";
import type { TierCache } from "../../../durable-objects/tier-cache.ts";
import { purgeTargets, targetName } from "../../../src/purge/targets.ts";
import { topologyOf, type Region } from "../../../src/config/topology.ts";
import { latestKey } from "../../../src/tiers/cache-key.ts";
import { lowerCounters } from "../../../src/tiers/lower-tier.ts";
import { allTiers, type TierIdentity } from "../../../src/bindings.ts";
import { append, appendOk, linearHistory } from "../support/archive.ts";
import { holdPurges } from "../support/hold-purges.ts";
import { ONE_COLO_PER_REGION, purgeStatus, queueOfPurge, readFrom, tierCache, waitForAck } from "../support/tiers.ts";

async function latestAt(t: TierIdentity, page: string): Promise<string | undefined> {
  const key = latestKey(page);
  const read = await tierCache(t).read(
    {
      query: { kind: "latest", ref: { key: page, title: page.replace(/_/g, " ") } },
      ...key,
      minVersion: 0,
      fromRegion: t.region,
    },
    t,
  );
  return read.entry.headers["x-revision-id"];
}

async function writeNext(
  page: string,
  revs: ReturnType<typeof linearHistory>,
  index: number,
  colo = "LHR",
): Promise<string> {
  const res = await append(page, [revs[index]!], undefined);
  void colo;
  const body = await res.json<{ purges: string[] }>();
  expect(res.status).toBe(201);
  return body.purges[0]!;
}

/** Writes revisions 1..count-1 of `page`, checks every regional and upper tier then serves count-1, and writes the last; its purge's id. */
async function warmEveryTierThenWrite(page: string, count: number): Promise<string> {
  const revs = linearHistory(count);
  await appendOk(page, revs.slice(0, count - 1));
  for (const t of allTiers(env)) expect(await latestAt(t, page)).toBe(String(count - 1));
  return writeNext(page, revs, count - 1);
}

/** Runs the queue's alarm every 100 ms until event `seq` is acknowledged, for at most 20 s (retries wait out their backoff). */
async function alarmUntilAcknowledged(queue: DurableObjectStub<PurgeQueue>, seq: number): Promise<void> {
  for (const until = Date.now() + 20_000; Date.now() < until && !(await queue.status(seq))?.acknowledged;) {
    await runDurableObjectAlarm(queue);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const setUnavailable = (tier: TierIdentity, unavailable: boolean) =>
  runInDurableObject(tierCache(tier), (t: TierCache) => void (t.faults.unavailable = unavailable));

/** Writes the first of `revs`, checks `region`'s first tier serves it, then cuts that tier off; the tier. */
async function cutOffAfterFirst(
  page: string,
  revs: ReturnType<typeof linearHistory>,
  region: Region,
): Promise<TierIdentity> {
  await appendOk(page, revs.slice(0, 1));
  const victim = allTiers(env).find((t) => t.region === region)!;
  expect(await latestAt(victim, page)).toBe("1");
  await setUnavailable(victim, true);
  return victim;
}

describe("push on write", () => {
  it("once a write's purge is acknowledged, every regional and upper tier serves the new revision", async () => {
    const page = "Pushed_page";
    const purge = await warmEveryTierThenWrite(page, 3);
    const status = await waitForAck(purge);
    // Every regional and upper tier, and every colo's lower tier.
    expect(status.tiers.map((t) => t.tier).sort()).toEqual(purgeTargets(env).map(targetName).sort());
    expect(status.tiers.filter((t) => t.tier.startsWith("lower/"))).toHaveLength(topologyOf(env).regionOfColo.size);
    for (const t of allTiers(env)) expect(await latestAt(t, page)).toBe("3");
  });

  it("serves a write from the writer's colo before any tier acknowledges its purge, and from a colo in another region that held the old revision once it is acknowledged", async () => {
    const page = "Far_page";
    const [writer, far] = ["LHR", "SYD"];
    expect(topologyOf(env).regionOfColo.get(writer)).not.toBe(topologyOf(env).regionOfColo.get(far));
    const revs = linearHistory(2);
    await appendOk(page, revs.slice(0, 1));
    // Both colos' lower tiers hold revision 1 (filled after the answer, so read until the lower tier answers).
    for (const colo of [writer, far]) {
      let served: Array<string | null> = [];
      for (let i = 0; i < 50 && served[0] !== "lower"; i++) {
        const res = await readFrom(colo, `/page/${page}`);
        served = [res.headers.get("x-palimpsest-tier"), res.headers.get("x-revision-id")];
        await res.arrayBuffer();
      }
      expect(served, colo).toEqual(["lower", "1"]);
    }

    // No target applies (so none acknowledges) the write's purge until released.
    const held = holdPurges(page);
    let purge: string;
    try {
      const res = await append(page, [revs[1]!], undefined, writer);
      expect(res.status).toBe(201);
      purge = (await res.json<{ purges: string[] }>()).purges[0]!;
      const mine = await readFrom(writer, `/page/${page}`);
      expect(mine.headers.get("x-revision-id")).toBe("2");
      expect(await mine.text()).toBe(revs[1]!.text);
      // The far colo, which only the purge reaches, still serves what it held.
      const before = await readFrom(far, `/page/${page}`);
      expect([before.headers.get("x-palimpsest-tier"), before.headers.get("x-revision-id")]).toEqual(["lower", "1"]);
      const status = await purgeStatus(purge);
      expect(status.tiers.filter((t) => t.acknowledged).map((t) => t.tier)).toEqual([]);
      expect(held.held).toBeGreaterThan(0);
    } finally {
      held.release();
    }

    await waitForAck(purge);
    const after = await readFrom(far, `/page/${page}`);
    expect(after.headers.get("x-revision-id")).toBe("2");
    expect(await after.text()).toBe(revs[1]!.text);
    expect(after.headers.get("x-palimpsest-tier")).not.toBe("lower");
  });

  it("keeps immutable revisions cached across writes and purges only the mutable keys", async () => {
    const page = "Immutable_page";
    const revs = linearHistory(2);
    await appendOk(page, revs.slice(0, 1));
    expect((await readFrom("NRT", `/page/${page}/1`)).headers.get("x-palimpsest-tier")).toBe("origin");
    await waitForAck(await writeNext(page, revs, 1));
    const again = await readFrom("HKG", `/page/${page}/1`);
    expect(again.headers.get("x-palimpsest-tier")).toBe("regional");
  });
});

describe("coalescing", () => {
  it("turns concurrent misses for one fresh key into exactly one origin fetch, and gives every reader the same answer", async () => {
    const page = "Coalesced_page";
    const readers = 12;
    const [rev] = linearHistory(1);
    const write = await append(page, [rev!]);
    expect(write.status).toBe(201);
    // Nothing in flight: no purge can land mid-read and make a tier fetch again.
    await waitForAck((await write.json<{ purges: string[] }>()).purges[0]!);
    /** Origin renders anywhere: every TierCache's counter, plus the edge's own (one isolate runs them all here). */
    const counted = async () => {
      const stats = await Promise.all(allTiers(env).map((t) => tierCache(t).stats()));
      const sum = (name: string) => stats.reduce((n, s) => n + (s.counters[name] ?? 0), 0);
      return { origin: sum("origin_fetch") + lowerCounters.originRenders, coalesced: sum("coalesced") };
    };
    const before = await counted();
    const results = await Promise.all(Array.from({ length: readers }, () => readFrom("GRU", `/page/${page}`)));
    const answers = await Promise.all(
      results.map(
        async (r) => `${r.status} ${r.headers.get("etag")} ${r.headers.get("x-revision-id")}\n${await r.text()}`,
      ),
    );
    const after = await counted();
    expect(after.origin - before.origin).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toBe(`200 ${results[0]!.headers.get("etag")} ${rev!.id}\n${rev!.text}`);
    // The readers really overlapped: some waited on the fetch another had started.
    expect(after.coalesced - before.coalesced).toBeGreaterThan(0);
  });
});

describe("delivery under failure", () => {
  it("brings a tier that was cut off up to date by replay from its pointer", async () => {
    const page = "Cutoff_page";
    const revs = linearHistory(5);
    const victim = await cutOffAfterFirst(page, revs, "oc");
    const purges: string[] = [];
    for (let i = 1; i < 5; i++) purges.push(await writeNext(page, revs, i));
    await new Promise((r) => setTimeout(r, 300));
    const queueName = purges[0]!.split(":")[0]!;
    const queue = queueOfPurge(purges[0]!).queue;
    const load = await queue.load();
    expect(load.pointers.find((p) => p.tier.startsWith("oc/"))!.lag).toBeGreaterThan(0);
    await setUnavailable(victim, false);
    // Retries are due after backoff; the alarm replays from the pointer.
    // A fanout's lost acknowledgement is redelivered after LIMITS.purge.fanoutAckTimeoutMs; allow for a loaded machine.
    await alarmUntilAcknowledged(queue, Number(purges[3]!.split(":")[1]));
    await waitForAck(purges[3]!);
    expect(await latestAt(victim, page)).toBe("5");
    const stats = await tierCache(victim).stats();
    // Other pages' purges share the queue, so the tier may be further along still.
    expect(stats.applied[queueName]!.seq).toBeGreaterThanOrEqual(Number(purges[3]!.split(":")[1]));
  });

  it("makes a tier that fell behind the retained log flush everything rather than guess", async () => {
    const page = "Flushed_page";
    const revs = linearHistory(3);
    const victim = await cutOffAfterFirst(page, revs, "afr");
    const first = await writeNext(page, revs, 1);
    const second = await writeNext(page, revs, 2);
    const [, lastSeq] = second.split(":") as [string, string];
    const queue = queueOfPurge(second).queue;
    // Lose the first event from the log, as retention would.
    await runInDurableObject(
      queue,
      (q: PurgeQueue, state) =>
        void state.storage.sql.exec("DELETE FROM log WHERE seq <= ?", Number(first.split(":")[1])),
    );
    // A batch handed to a Fanout before the log lost the event may still be on its way (relayed, or
    // waiting for the Fanout's next round): let it fail against the cut-off tier, so that the only way
    // back for the tier is through the log, which no longer has the event.
    await new Promise((r) => setTimeout(r, 300));
    await setUnavailable(victim, false);
    await alarmUntilAcknowledged(queue, Number(lastSeq));
    const stats = await tierCache(victim).stats();
    expect(stats.counters.flush).toBe(1);
    expect(await latestAt(victim, page)).toBe("3");
  });

  it("loses no purge when the tiers and queues are reset mid-broadcast", async () => {
    const page = "Reset_page";
    const purge = await warmEveryTierThenWrite(page, 2);
    const [, seq] = purge.split(":") as [string, string];
    const before = queueOfPurge(purge).queue;
    // Reset the queue and one far tier while the broadcast is in flight. (Not abortAllDurableObjects:
    // that would also break Durable Objects other test files are using at the same moment.)
    const farTier = allTiers(env).find((t) => t.region === "apac")!;
    for (const stub of [before, tierCache(farTier)] as DurableObjectStub[]) {
      await runInDurableObject(stub, (_instance, state) => state.abort("reset mid-broadcast")).catch(() => undefined);
    }
    // A stub to an aborted object stays broken; callers reconnect with a new one.
    const queue = queueOfPurge(purge).queue;
    await alarmUntilAcknowledged(queue, Number(seq));
    await waitForAck(purge);
    for (const t of allTiers(env)) expect(await latestAt(t, page)).toBe("2");
  });
});

describe("simulation", () => {
  it("refuses an unknown simulated colo with a clear problem", async () => {
    const res = await readFrom("XXX", "/page/Anything");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "unknown_colo" });
  });

  it("reads from every region after a write reflect the acknowledged purge", async () => {
    const page = "Everywhere_page";
    const revs = linearHistory(2);
    await appendOk(page, revs.slice(0, 1));
    await waitForAck(await writeNext(page, revs, 1));
    for (const colo of ONE_COLO_PER_REGION)
      expect((await readFrom(colo, `/page/${page}`)).headers.get("x-revision-id")).toBe("2");
  });
});
