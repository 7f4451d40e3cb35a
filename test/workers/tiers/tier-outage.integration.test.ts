import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TierCache } from "../../../durable-objects/tier-cache.ts";
import type { Region } from "../../../src/config/topology.ts";
import { LIMITS } from "../../../src/limits.ts";
import { clearBlobCache } from "../../../src/storage/blob-cache.ts";
import { latestKey } from "../../../src/tiers/cache-key.ts";
import { pageStoreOf, regionalTierFor, upperTierFor, type TierIdentity } from "../../../src/bindings.ts";
import { TOKEN, appendOk, linearHistory, request } from "../support/archive.ts";
import { readFrom, tierCache } from "../support/tiers.ts";

const setFaults = (t: TierIdentity, faults: TierCache["faults"]) =>
  runInDurableObject(tierCache(t), (tier: TierCache) => void (tier.faults = faults));

async function tierCounters(): Promise<Record<string, number>> {
  const res = await request("/api/tiers", { headers: { authorization: `Bearer ${TOKEN}` } });
  return (await res.json<{ lower: { isolateCounters: Record<string, number> } }>()).lower.isolateCounters;
}

/** Sets each tier's faults, runs `body`, then clears them whatever happened. */
async function withFaults(
  faults: ReadonlyArray<[TierIdentity, TierCache["faults"]]>,
  body: () => Promise<void>,
): Promise<void> {
  for (const [tier, f] of faults) await setFaults(tier, f);
  try {
    await body();
  } finally {
    for (const [tier] of faults) await setFaults(tier, {});
  }
}

/** Writes `revisions` revisions of `page`; the regional tier in `region` and the upper tier its latest goes through. */
async function pageTiers(
  page: string,
  revisions: number,
  region: Region,
): Promise<{ regional: TierIdentity; upper: TierIdentity }> {
  await appendOk(page, linearHistory(revisions));
  const key = latestKey(page).key;
  return { regional: regionalTierFor(env, region, key), upper: upperTierFor(env, key) };
}

describe("a tier that is down or slow is gone around", () => {
  it("serves the read from the upper tier when the regional tier throws, and counts the skip", async () => {
    const page = "Regional_outage";
    const { regional } = await pageTiers(page, 2, "oc");
    const before = await tierCounters();
    await withFaults([[regional, { unavailable: true }]], async () => {
      const res = await readFrom("SYD", `/page/${page}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(linearHistory(2)[1]!.text);
      expect(["upper", "origin"]).toContain(res.headers.get("x-palimpsest-tier"));
    });
    expect((await tierCounters()).skippedRegional).toBe(before.skippedRegional! + 1);
  });

  it("renders from the origin when the upper tier throws too, and when a tier hangs past the hop deadline", async () => {
    const page = "Everything_down";
    const { regional, upper } = await pageTiers(page, 1, "sam");
    const faults: Array<[TierIdentity, TierCache["faults"]]> = [
      [regional, { delayMs: LIMITS.tiers.hopTimeoutMs + 2_000 }],
      [upper, { unavailable: true }],
    ];
    await withFaults(faults, async () => {
      const started = Date.now();
      const res = await readFrom("GRU", `/page/${page}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-palimpsest-tier")).toBe("origin");
      expect(Date.now() - started).toBeLessThan(LIMITS.tiers.hopTimeoutMs + 2_000);
    });
  });

  it("has the regional tier go around a failed upper tier to the origin, counting it", async () => {
    const page = "Upper_outage";
    const { regional, upper } = await pageTiers(page, 1, "afr");
    const before = (await tierCache(regional).stats()).counters.skipped_upper ?? 0;
    await withFaults([[upper, { unavailable: true }]], async () => {
      const res = await readFrom("JNB", `/page/${page}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-palimpsest-tier")).toBe("origin");
    });
    expect((await tierCache(regional).stats()).counters.skipped_upper).toBe(before + 1);
  });
});

describe("a blob KV does not show yet", () => {
  it("is retried within the request, then answered 503 with Retry-After and no storage names", async () => {
    const page = "Lagging_blob";
    await appendOk(
      page,
      linearHistory(3, 1, (i) => `lagging blob text ${i}\n`),
    );
    const located = await pageStoreOf(env, page).locate({ kind: "id", id: 3 });
    if (!located.ok) throw new Error("locate failed");
    const saved = await env.BLOBS.get(located.location.blob, "arrayBuffer");
    await env.BLOBS.delete(located.location.blob);
    clearBlobCache();
    const started = Date.now();
    const res = await readFrom("EZE", `/page/${page}/3`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe(String(LIMITS.storage.blobRetryAfterSeconds));
    const body = await res.text();
    expect(body).not.toContain("blob/");
    expect(JSON.parse(body)).toMatchObject({
      code: "revision_not_yet_available",
      revision: 3,
      requestId: res.headers.get("x-request-id"),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(LIMITS.storage.blobRetryBaseMs);

    // Once it shows, the next read gets it: a 503 is never cached.
    await env.BLOBS.put(located.location.blob, saved!);
    const again = await readFrom("EZE", `/page/${page}/3`);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe("lagging blob text 2\n");
  });
});
