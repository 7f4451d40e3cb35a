import { describe, expect, it } from "vitest";
import { PageDirectory } from "../../../durable-objects/page-directory.ts";
import { append, appendOk, linearHistory, request } from "../support/archive.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import { get, login, type Signed } from "./support/dashboard.ts";
import type { PageStatsBody } from "../../../src/wire.ts";

type Stats = PageStatsBody;

async function statsOf(page: string): Promise<Stats> {
  const res = await request(`/api/pages/${page}/stats`, { headers: bearer(TOKENS.write) });
  expect(res.status).toBe(200);
  return await res.json<Stats>();
}

/** The storage view's row for a page, once its figures show `revisions` (they are reported after the write answers). */
async function rowOnceReported(s: Signed, page: string, revisions: string, timeoutMs = 5_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const html = await (await get("/dashboard/storage", s)).text();
    const row = new RegExp(`<tr data-page="${page}">(.*?)</tr>`, "s").exec(html)?.[1] ?? "";
    if (row.includes(`data-field="revisions">${revisions}<`)) return row;
    if (Date.now() > until)
      throw new Error(`storage view never showed ${page} with ${revisions} revisions; row: ${row || "(none)"}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("the storage view", () => {
  it("shows a page's revisions and its raw, stored and metadata bytes after a write, and the totals", async () => {
    const s = await login();
    const page = "AAA_Storage_view";
    await appendOk(
      page,
      linearHistory(3, 1, (i) => `Storage view text ${i}\n`.repeat(40)),
    );
    const row = await rowOnceReported(s, page, "3");
    const stats = await statsOf(page);
    expect(stats.revisions).toBe(3);
    expect(row).toContain(`<data value="${stats.rawBytes}">`);
    expect(row).toContain(`<data value="${stats.blobBytes}">`);
    expect(row).toContain(`<data value="${stats.metadataBytes}">`);
    const html = await (await get("/dashboard/storage", s)).text();
    const totals = /<dt>Revisions<\/dt>\s*<dd><data value="(\d+)">/.exec(html);
    expect(Number(totals?.[1])).toBeGreaterThanOrEqual(3);

    // A second write is reported too, replacing the first figures.
    await appendOk(
      page,
      linearHistory(2, 4, (i) => `More text ${i}\n`).map((r, i) => (i === 0 ? { ...r, parentId: 3 } : r)),
    );
    const after = await rowOnceReported(s, page, "5");
    expect(after).toContain(`<data value="${(await statsOf(page)).rawBytes}">`);
  });

  it("shows a deleted page as deleted, with no revisions", async () => {
    const s = await login();
    const page = "AAB_Storage_deleted";
    await appendOk(page, linearHistory(2));
    await rowOnceReported(s, page, "2");
    const res = await request(`/api/pages/${page}?reason=a%20test%20deletion`, {
      method: "DELETE",
      headers: bearer(TOKENS.write),
    });
    expect(res.status).toBe(200);
    const row = await rowOnceReported(s, page, "0");
    expect(row).toContain("(deleted)");
  });

  it("never fails a write when the report fails", async () => {
    const original = PageDirectory.prototype.report;
    let attempts = 0;
    PageDirectory.prototype.report = () => {
      attempts++;
      throw new Error("directory shard unavailable");
    };
    try {
      const res = await append("AAC_Storage_unreported", linearHistory(1));
      expect(res.status).toBe(201);
      // The report runs after the answer; keep it failing until it has been tried.
      for (let i = 0; attempts === 0 && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
      expect(attempts).toBe(1);
    } finally {
      PageDirectory.prototype.report = original;
    }
    const s = await login();
    const html = await (await get("/dashboard/storage", s)).text();
    expect(html).toMatch(/<tr data-page="AAC_Storage_unreported">.*?not measured yet/s);
  });
});
