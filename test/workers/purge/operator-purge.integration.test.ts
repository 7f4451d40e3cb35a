/**
 * Operators' purges through POST /api/purges, as an operator's script sends
 * them: every kind reaches every tier (each colo's lower tier, every
 * regional and upper TierCache), completion is reported tier by tier, and
 * once complete no tier serves anything the purge covered; every colo's next
 * read is refetched. A tier cut off mid-purge holds completion back until it
 * is restored.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TierCache } from "../../../durable-objects/tier-cache.ts";
import { pageStoreOf, regionalTierFor, tierName, upperTierFor, type TierIdentity } from "../../../src/bindings.ts";
import { topologyOf } from "../../../src/config/topology.ts";
import { historyKey, latestKey, revisionKey, type CacheKey } from "../../../src/tiers/cache-key.ts";
import { LowerTier, lowerCounters } from "../../../src/tiers/lower-tier.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { readFrom, tierCache } from "../support/tiers.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import type { PurgeReceiptBody, PurgeStatusBody } from "../../../src/wire.ts";

const COLOS = [...topologyOf(env).regionOfColo.keys()];
const HOST = "archive.test";

type Receipt = PurgeReceiptBody;
type View = PurgeStatusBody;

function purge(body: unknown, token: string = TOKENS.operator, colo = "IAD"): Promise<Response> {
  return request("/api/purges", {
    method: "POST",
    headers: { ...bearer(token), "content-type": "application/json", "x-palimpsest-colo": colo },
    body: JSON.stringify(body),
  });
}

async function purgeOk(body: unknown): Promise<Receipt> {
  const res = await purge(body);
  if (res.status !== 202) throw new Error(`purge refused: ${res.status} ${await res.text()}`);
  return await res.json<Receipt>();
}

async function view(id: string, wait = 0): Promise<View> {
  const res = await request(`/api/purges/${id}${wait ? `?wait=${wait}` : ""}`, { headers: bearer(TOKENS.operator) });
  expect(res.status).toBe(200);
  return await res.json<View>();
}

/** Reads a key once from every colo, so every lower tier, every regional tier holding it, and the upper tier hold it. */
async function warm(path: string): Promise<void> {
  for (const colo of COLOS) {
    const res = await readFrom(colo, path);
    expect(res.status, `${colo} ${path}`).toBe(200);
    await res.arrayBuffer();
  }
  // The lower tier keeps what it read in the background: wait until every colo holds it.
  await until(
    async () =>
      (
        await Promise.all(
          COLOS.map(async (colo) => (await (await LowerTier.open(env, colo)).get(keyOfPath(path))).hit !== undefined),
        )
      ).every(Boolean),
    `${path} cached in every colo`,
  );
}

function keyOfPath(path: string): CacheKey {
  const [, , page, rest] = path.split(/[/?]/);
  if (path.includes("/history")) return historyKey(decodeURIComponent(page!), 50, undefined);
  return rest && /^\d+$/.test(rest)
    ? revisionKey(decodeURIComponent(page!), Number(rest))
    : latestKey(decodeURIComponent(page!));
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Nothing in any tier produced before `at` for this key: what "nothing
 * purged is served" means tier by tier. `readSince` are colos that read the
 * key after the purge, and so may hold a fresh copy.
 */
async function assertGoneEverywhere(path: string, at: number, readSince: string[] = []): Promise<void> {
  const key = keyOfPath(path);
  for (const colo of COLOS) {
    const { hit } = await (await LowerTier.open(env, colo)).get(key);
    expect(hit === undefined || hit.entry.storedAt >= at, `lower tier of ${colo} still serves ${path}`).toBe(true);
  }
  // Every colo's next read is refetched, and no tier below hands back anything older than the purge:
  // an edge that had to go around one (a "skip") would mean that tier still served the purged copy.
  const holders: TierIdentity[] = Object.keys(topologyOf(env).regions).map((region) =>
    regionalTierFor(env, region as never, key.key),
  );
  const skips = async () => {
    const edge = lowerCounters.skippedRegional + lowerCounters.skippedUpper;
    const tiers = await Promise.all(holders.map(async (t) => (await tierCache(t).stats()).counters.behind_upper ?? 0));
    return edge + tiers.reduce((a, b) => a + b, 0);
  };
  const skipsBefore = await skips();
  for (const colo of COLOS) {
    const res = await readFrom(colo, path);
    expect(res.status).toBe(200);
    if (!readSince.includes(colo))
      expect(res.headers.get("x-palimpsest-tier"), `${colo} served ${path} from its lower tier`).not.toBe("lower");
    await res.arrayBuffer();
  }
  await until(async () => {
    for (const colo of COLOS) {
      const { hit } = await (await LowerTier.open(env, colo)).get(key);
      if (!hit || hit.entry.storedAt < at) return false;
    }
    return true;
  }, `${path} refetched into every colo`);
  expect(await skips(), "a tier still held the purged copy").toBe(skipsBefore);
}

describe("operator purges reach every tier", () => {
  const kinds: Array<{ kind: string; page: string; path: (page: string) => string; body: (page: string) => unknown }> =
    [
      {
        kind: "files",
        page: "Op_files",
        path: (p) => `/page/${p}/2`,
        body: (p) => ({
          files: [
            `http://${HOST}/page/${p}/2`,
            { url: `http://${HOST}/page/${p}?nonsense=1`, headers: { "CF-IPCountry": "US" } },
          ],
        }),
      },
      { kind: "tags", page: "Op_tags", path: (p) => `/page/${p}`, body: () => ({ tags: ["team:op-tags"] }) },
      {
        kind: "prefixes",
        page: "Op_prefixes",
        path: (p) => `/page/${p}/history`,
        body: (p) => ({ prefixes: [`${HOST}/page/${p}`] }),
      },
      { kind: "hosts", page: "Op_hosts", path: (p) => `/page/${p}/1`, body: () => ({ hosts: [HOST] }) },
      {
        kind: "everything",
        page: "Op_everything",
        path: (p) => `/page/${p}`,
        body: () => ({ purge_everything: true }),
      },
    ];

  kinds.forEach(({ kind, page, path, body }, i) => {
    it(`${kind}: every tier acknowledges, a tier killed mid-purge holds it back until restored, and once complete no tier serves what it covered`, async () => {
      await appendOk(
        page,
        linearHistory(2).map((r) => ({ ...r, tags: [`team:${page.toLowerCase().replace("_", "-")}`] })),
      );
      await warm(path(page));
      const version = await pageVersion(page);
      // Alternately a regional tier holding the key and the upper tier holding it.
      const key = keyOfPath(path(page)).key;
      const killed = i % 2 === 0 ? regionalTierFor(env, "apac", key) : upperTierFor(env, key);
      const setFaults = (faults: TierCache["faults"]) =>
        runInDurableObject(tierCache(killed), (t: TierCache) => void (t.faults = faults));
      await setFaults({ unavailable: true });
      let receipt: Receipt;
      try {
        receipt = await purgeOk(body(page));
        expect(receipt.success).toBe(true);
        expect(receipt.id).toMatch(/^enam-q\d+:\d+$/);
        // Every other tier acknowledges (however long a loaded machine takes); the cut-off one cannot.
        const pending = async () => (await view(receipt.id)).tiers.filter((t) => !t.acknowledged).map((t) => t.tier);
        await until(async () => (await pending()).length <= 1, "every tier but the cut-off one acknowledging", 30_000);
        const stuck = await view(receipt.id);
        expect(stuck.state).toBe("pending");
        expect(stuck.tiers.filter((t) => !t.acknowledged).map((t) => t.tier)).toEqual([tierName(killed)]);
      } finally {
        await setFaults({});
      }
      const done = await view(receipt.id, 45);
      expect(done.state).toBe("complete");
      expect(done.completedAt).toBeGreaterThanOrEqual(done.createdAt);
      const levels = new Set(done.tiers.map((t) => t.level));
      expect(levels).toEqual(new Set(["lower", "regional", "upper"]));
      expect(done.tiers.filter((t) => t.level === "lower")).toHaveLength(COLOS.length);
      expect(done.tiers.every((t) => t.acknowledged && t.ackedAt !== null)).toBe(true);
      await assertGoneEverywhere(path(page), done.createdAt);
      // An operator's purge writes nothing to the page itself.
      expect(await pageVersion(page)).toBe(version);
    });
  });

  it("files: drops what the archive never caches, says why, and purges the rest", async () => {
    await appendOk("Op_drops", linearHistory(1));
    const receipt = await purgeOk({
      files: [`http://${HOST}/page/Op_drops`, `http://${HOST}/api/limits`, `http://${HOST}/healthz`],
    });
    expect(receipt.accepted).toEqual([`http://${HOST}/page/Op_drops`]);
    expect(receipt.dropped.map((d) => d.item)).toEqual([`http://${HOST}/api/limits`, `http://${HOST}/healthz`]);
    expect(receipt.dropped[0]!.reason).toMatch(/never cached/);
  });

  it("a regional tier cut off mid-purge holds completion back, and the purge completes once it is restored", async () => {
    const page = "Op_outage";
    await appendOk(page, linearHistory(1));
    await warm(`/page/${page}`);
    const cutOff = regionalTierFor(env, "weur", latestKey(page).key);
    const setFaults = (faults: TierCache["faults"]) =>
      runInDurableObject(tierCache(cutOff), (t: TierCache) => void (t.faults = faults));
    await setFaults({ unavailable: true });
    let id: string;
    try {
      id = (await purgeOk({ files: [`http://${HOST}/page/${page}`] })).id;
      // Every other tier acknowledges and the cut-off one has failed a delivery, however long a loaded machine takes.
      await until(
        async () => {
          const open = (await view(id)).tiers.filter((t) => !t.acknowledged);
          return open.length <= 1 && open.every((t) => t.lastError !== null);
        },
        "every tier but the cut-off one acknowledging",
        30_000,
      );
      const stuck = await view(id);
      expect(stuck.state).toBe("pending");
      const pending = stuck.tiers.filter((t) => !t.acknowledged).map((t) => t.tier);
      expect(pending).toEqual([`weur/${cutOff.member}`]);
      expect(stuck.tiers.find((t) => !t.acknowledged)!.lastError).toMatch(/unavailable/);
      // Its region's readers are served around it meanwhile, never the purged copy.
      const res = await readFrom("LHR", `/page/${page}`);
      expect(res.headers.get("x-palimpsest-tier")).not.toBe("lower");
      await res.arrayBuffer();
    } finally {
      await setFaults({});
    }
    const done = await view(id!, 45);
    expect(done.state).toBe("complete");
    await assertGoneEverywhere(`/page/${page}`, done.createdAt, ["LHR"]);
  });
});

describe("soft purges", () => {
  it("serve a covered entry stale while revalidating, and never once the revalidation has answered", async () => {
    const page = "Op_soft";
    await appendOk(page, linearHistory(1));
    await warm(`/page/${page}`);
    const receipt = await purgeOk({ files: [`http://${HOST}/page/${page}`], soft: true });
    const done = await view(receipt.id, 30);
    expect(done.state).toBe("complete");
    const lower = await LowerTier.open(env, "SYD");
    // Still there, but stale.
    const before = await lower.get(latestKey(page));
    expect(before.hit?.state).toBe("stale");
    const stale = await readFrom("SYD", `/page/${page}`);
    expect(stale.status).toBe(200);
    expect(stale.headers.get("x-palimpsest-tier")).toBe("lower");
    await stale.arrayBuffer();
    // The background revalidation replaces it with a copy made after the purge…
    await until(
      async () => ((await lower.get(latestKey(page))).hit?.entry.storedAt ?? 0) >= done.createdAt,
      "revalidated",
    );
    // …which is fresh: the old copy is never served again.
    expect((await lower.get(latestKey(page))).hit?.state).toBe("fresh");
    // The regional tier that held it served it stale once and refetched it.
    const regional = regionalTierFor(env, "oc", latestKey(page).key);
    const counters = (await tierCache(regional).stats()).counters;
    expect(counters.revalidated ?? 0).toBeGreaterThan(0);
  });
});

describe("cache tags", () => {
  it("every answer carries page, namespace and media type tags, plus the writer's", async () => {
    await appendOk(
      "Help:Op_tagged",
      linearHistory(1).map((r) => ({ ...r, tags: ["release:2026-11", "team:docs"] })),
    );
    const res = await readFrom("IAD", "/page/Help:Op_tagged");
    expect(res.headers.get("cache-tag")!.split(",")).toEqual([
      "page:Help:Op_tagged",
      "ns:12",
      "type:text/x-wiki",
      "release:2026-11",
      "team:docs",
    ]);
    await res.arrayBuffer();
    const history = await readFrom("IAD", "/page/Help:Op_tagged/history");
    expect(history.headers.get("cache-tag")).toBe("page:Help:Op_tagged,ns:12,type:application/json");
    await history.arrayBuffer();
  });

  it("refuses writer tags with a comma or a line break", async () => {
    for (const tag of ["a,b", "a\r\nb"]) {
      const res = await request("/api/pages/Op_bad_tag/revisions", {
        method: "POST",
        headers: { ...bearer(TOKENS.write), "content-type": "application/json" },
        body: JSON.stringify({ revisions: linearHistory(1).map((r) => ({ ...r, tags: [tag] })) }),
      });
      expect(res.status).toBe(422);
      expect((await res.json<{ field: string }>()).field).toBe("revisions.0.tags.0");
    }
  });
});

async function pageVersion(page: string): Promise<number> {
  const located = await pageStoreOf(env, page).locate({ kind: "latest" });
  return located.ok ? located.version : -1;
}
