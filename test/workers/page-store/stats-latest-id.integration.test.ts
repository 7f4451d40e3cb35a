/**
 * A page's stats (`GET /api/pages/{title}/stats`, write scope) name its
 * latest revision, read from its PageStore: where `palimpsest import`
 * resumes a page, without a public read through the tiers. Hidden latest
 * revisions and pages deleted as MediaWiki deletes still have theirs (the
 * archive holds them); a page deleted for good has none (its next write
 * starts it anew).
 */
import { describe, expect, it } from "vitest";
import type { PageStatsBody } from "../../../src/wire.ts";
import { TOKEN, appendOk, linearHistory, request } from "../support/archive.ts";

const auth = { authorization: `Bearer ${TOKEN}` };
const latestOf = async (key: string) =>
  (await (await request(`/api/pages/${key}/stats`, { headers: auth })).json<PageStatsBody>()).latestId;
const change = (path: string, method: string, body?: object) =>
  request(path, {
    method,
    headers: { ...auth, "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

describe("a page's stats", () => {
  it("name its latest revision, after each write", async () => {
    const history = linearHistory(5, 700);
    await appendOk("Stats_latest", history.slice(0, 3));
    expect(await latestOf("Stats_latest")).toBe(702);
    await appendOk("Stats_latest", history.slice(3));
    expect(await latestOf("Stats_latest")).toBe(704);
  });

  it("name a hidden latest revision, and the latest of a page deleted as MediaWiki deletes", async () => {
    await appendOk("Stats_latest_hidden", linearHistory(2, 710));
    const hide = await change("/api/pages/Stats_latest_hidden/revisions/711/suppression", "PUT", {
      suppressed: true,
      reason: "a test",
    });
    expect(hide.status).toBe(200);
    expect(await latestOf("Stats_latest_hidden")).toBe(711);
    expect(
      (await change("/api/pages/Stats_latest_hidden/deletion", "PUT", { deleted: true, reason: "a test" })).status,
    ).toBe(200);
    expect(await latestOf("Stats_latest_hidden")).toBe(711);
  });

  it("name none for a page deleted for good", async () => {
    await appendOk("Stats_latest_erased", linearHistory(2, 720));
    expect((await change("/api/pages/Stats_latest_erased?reason=a%20test", "DELETE")).status).toBe(200);
    expect(await latestOf("Stats_latest_erased")).toBeNull();
  });
});
