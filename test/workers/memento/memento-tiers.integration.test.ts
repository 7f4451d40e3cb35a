/**
 * Memento answers as the tiers and the store keep them: an operator's purge
 * of a TimeMap URL reaches the cached TimeMap, and the store answers every
 * Memento question from its time index, reading a handful of rows however
 * long the history.
 */
import { describe, expect, it } from "vitest";
import { mementoInfo, timemapPage } from "../../../src/page-store/mementos.ts";
import { withCountedRows } from "../support/page-shards.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { waitForAck } from "../support/tiers.ts";
import { bearer, TOKENS } from "../support/tokens.ts";

/** Reads until this colo's lower tier answers (its fill is put in the background). */
async function cachedHere(path: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if ((await request(path)).headers.get("x-palimpsest-tier") === "lower") return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${path} never reached the lower tier`);
}

describe("operator purges of TimeMap URLs", () => {
  it("resolve files and prefixes to the TimeMap's keys, and the purged TimeMap is fetched again", async () => {
    await appendOk("Md_purged_map", linearHistory(3));
    await cachedHere("/timemap/link/Md_purged_map");
    const purge = async (body: unknown) => {
      const res = await request("/api/purges", {
        method: "POST",
        headers: { ...bearer(TOKENS.operator), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(202);
      return await res.json<{ id: string; keys: number; dropped: unknown[] }>();
    };
    const files = await purge({
      files: [
        "http://archive.test/timemap/link/Md_purged_map",
        "http://archive.test/timemap/json/md_purged_map?after=2",
      ],
    });
    expect(files).toMatchObject({ keys: 2, dropped: [] });
    await waitForAck(files.id);
    expect((await request("/timemap/link/Md_purged_map")).headers.get("x-palimpsest-tier")).not.toBe("lower");
    await cachedHere("/timemap/link/Md_purged_map");
    const prefix = await purge({ prefixes: ["archive.test/timemap/link/Md_purged_map"] });
    expect(prefix).toMatchObject({ dropped: [] });
    await waitForAck(prefix.id);
    expect((await request("/timemap/link/Md_purged_map")).headers.get("x-palimpsest-tier")).not.toBe("lower");
  });
});

describe("the store's Memento queries walk the time index", () => {
  it("read a few rows per question on a 3,000-revision history, at its start, middle and end", async () => {
    const key = "Md_indexed";
    const history = linearHistory(3_000);
    for (let i = 0; i < history.length; i += 500) await appendOk(key, history.slice(i, i + 500));
    const rows = await withCountedRows(key, (db, measure) => ({
      start: measure(() => mementoInfo(db, { id: 1 })),
      middle: measure(() => mementoInfo(db, { id: 1_500 })),
      end: measure(() => mementoInfo(db, { id: 3_000 })),
      at: measure(() => mementoInfo(db, { at: Date.UTC(2020, 0, 1) / 1000 + 2_222 })),
      map: measure(() => timemapPage(db, { after: 2_000 }, 10)),
    }));
    expect(rows.middle.result).toMatchObject({
      self: { id: 1_500 },
      first: { id: 1 },
      last: { id: 3_000 },
      prev: { id: 1_499 },
      next: { id: 1_501 },
    });
    expect(rows.at.result).toMatchObject({ self: { id: 2_223 } });
    expect(rows.map.result).toMatchObject({
      mementos: Array.from({ length: 10 }, (_, i) => ({ id: 2_001 + i })),
      hasOlder: true,
      hasNewer: true,
    });
    for (const [what, { read }] of Object.entries(rows)) expect(read, what).toBeLessThan(40);
  });
});
