import { inject, describe, expect, it } from "vitest";
import { sha1Base36 } from "../../../src/lib/digests.ts";
import { normalizeTitle } from "../../../src/page/title.ts";
import type { NewRevision } from "../../../src/page/types.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";

interface HistoryPageBody {
  total: number;
  revisions: Array<{ id: number }>;
  links: { older: string | null; newer: string | null };
}

describe("history pagination", () => {
  it("pages through 10,000 revisions newest first, each exactly once, and back again", async () => {
    const key = "Ten_thousand";
    const revs = linearHistory(10_000);
    for (let i = 0; i < revs.length; i += 500) await appendOk(key, revs.slice(i, i + 500));

    const seen: number[] = [];
    let url: string | null = `/page/${key}/history?limit=500`;
    let pages = 0;
    let last: HistoryPageBody | undefined;
    while (url) {
      const res = await request(url.replace("http://archive.test", ""));
      expect(res.status).toBe(200);
      last = await res.json<HistoryPageBody>();
      expect(last.total).toBe(10_000);
      seen.push(...last.revisions.map((r) => r.id));
      url = last.links.older;
      pages++;
    }
    expect(pages).toBe(20);
    expect(seen).toEqual(Array.from({ length: 10_000 }, (_, i) => 10_000 - i));

    // Walking back with `newer` from the oldest page returns the page before it.
    const back = await (await request(last!.links.newer!.replace("http://archive.test", ""))).json<HistoryPageBody>();
    expect(back.revisions.map((r) => r.id)).toEqual(Array.from({ length: 500 }, (_, i) => 1000 - i));

    // Any revision deep in the history reads back exactly.
    for (const id of [1, 17, 4_999, 9_984, 10_000]) {
      expect(await (await request(`/page/${key}/${id}`)).text()).toBe(revs[id - 1]!.text);
    }
  });

  it("rejects a limit over the maximum, naming the limit", async () => {
    await appendOk("Limit_page", linearHistory(1));
    const res = await request("/page/Limit_page/history?limit=501");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: "invalid_limit",
      limit: { name: "history.maxPageSize", value: 500 },
    });
  });
});

describe("round trip of shared histories", () => {
  const histories = inject("histories");

  for (const name of ["bip-0340", "bip-0341"]) {
    it.skipIf(!histories[name])(
      `stores and reads back every revision of ${name} byte for byte`,
      async () => {
        const exported = histories[name]!;
        const key = (normalizeTitle(exported[0]!.title) as { key: string }).key;
        const revisions: NewRevision[] = exported.map((r, i) => ({
          ...r,
          parentId: i === 0 ? null : exported[i - 1]!.id,
        }));
        for (let i = 0; i < revisions.length; i += 64) await appendOk(key, revisions.slice(i, i + 64));

        let maxBlobReads = 0;
        for (const rev of exported) {
          const res = await request(`/page/${key}/${rev.id}`);
          expect(res.status).toBe(200);
          const body = new Uint8Array(await res.arrayBuffer());
          expect(new TextDecoder().decode(body)).toBe(rev.text);
          expect(await sha1Base36(body)).toBe(rev.sha1);
          const cost = /blob-reads=(\d+)/.exec(res.headers.get("x-read-cost") ?? "")!;
          maxBlobReads = Math.max(maxBlobReads, Number(cost[1]));
        }
        expect(maxBlobReads).toBeLessThanOrEqual(2);
        const history = await (await request(`/page/${key}/history?limit=1`)).json<HistoryPageBody>();
        expect(history.total).toBe(exported.length);
      },
      180_000,
    ); // a whole corpus history in and out: tens of seconds on a loaded 2-core machine
  }
});
