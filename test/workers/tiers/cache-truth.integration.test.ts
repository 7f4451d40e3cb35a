/**
 * What the archive tells browsers and shared caches must be true. A
 * revision URL is not "immutable" (a suppression or deletion turns it into
 * a 410), and its bytes never change: a deleted page's ids are retired.
 * Answers kept current by purges carry no Age that would make them stale on
 * arrival. HTML pages carry validators like their JSON. And the latest,
 * which most readers fetch, gets dcb too.
 */
import { describe, expect, it } from "vitest";
import { dcbDecompress } from "../../../src/codec/index.ts";
import { append, appendOk, linearHistory, request } from "../support/archive.ts";
import { availableDictionary } from "../support/dcb.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import { expectProblemCode } from "../support/problems.ts";

const text = (i: number) =>
  `== Revision ${i} ==\n` +
  Array.from(
    { length: 60 },
    (_, n) => `line ${n} of a page that changes a little in ${n === i ? "this" : "every"} revision`,
  ).join("\n");

describe("revision URLs", () => {
  it("are fresh for minutes, not a year, and never immutable", async () => {
    await appendOk("Truth_revision", linearHistory(2));
    const cc = (await request("/page/Truth_revision/1")).headers.get("cache-control")!;
    expect(cc).not.toContain("immutable");
    const maxAge = Number(/max-age=(\d+)/.exec(cc)![1]);
    expect(maxAge).toBeLessThanOrEqual(600);
  });

  it("never serve other bytes after the page is deleted and written again: a retired id is refused with other content", async () => {
    await appendOk("Truth_retired", linearHistory(2));
    const before = await (await request("/page/Truth_retired/2")).text();
    const del = await request("/api/pages/Truth_retired?reason=a%20test%20deletion", {
      method: "DELETE",
      headers: bearer(TOKENS.write),
    });
    expect(del.status).toBe(200);
    const reused = await append("Truth_retired", [
      { ...linearHistory(1)[0]!, id: 2, text: "different bytes under an old URL" },
    ]);
    await expectProblemCode(reused, 409, "revision_id_retired");
    // Restored as it was (MediaWiki's undelete), the ids come back with their bytes.
    expect((await append("Truth_retired", linearHistory(2))).status).toBe(201);
    expect(await (await request("/page/Truth_retired/2")).text()).toBe(before);
  });
});

describe("Age", () => {
  it("is not the time an answer sat in a tier: the latest, history and TimeMap are not stale on arrival", async () => {
    await appendOk("Truth_age", linearHistory(3));
    const paths = ["/page/Truth_age", "/page/Truth_age/history", "/timemap/link/Truth_age", "/page/Truth_age/2"];
    for (const p of paths) await (await request(p)).arrayBuffer();
    await new Promise((r) => setTimeout(r, 2100));
    for (const p of paths) {
      const res = await request(p);
      expect(res.status, p).toBe(200);
      const age = Number(res.headers.get("age") ?? "0");
      const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get("cache-control") ?? "")?.[1] ?? "0");
      expect(age, `${p}: age ${age}`).toBeLessThan(2);
      expect(age).toBeLessThanOrEqual(maxAge);
    }
  }, 30_000);
});

describe("HTML pages carry validators, as their JSON does", () => {
  it.each([
    ["history", "/page/Truth_html/history"],
    ["front page", "/"],
    ["search", "/search?q=Truth"],
    ["compare", "/page/Truth_html/compare/1...2"],
  ])("the %s page has an ETag and answers If-None-Match with 304", async (_, path) => {
    await appendOk("Truth_html", linearHistory(2));
    const html = { accept: "text/html" };
    const res = await request(path, { headers: html });
    expect(res.status).toBe(200);
    const etag = res.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{64}(-br|-gzip)?"$/);
    const again = await request(path, { headers: { ...html, "if-none-match": etag! } });
    expect(again.status).toBe(304);
  });

  it("the HTML history carries the page's Cache-Tag, so a purge by tag reaches it", async () => {
    await appendOk("Truth_tag", linearHistory(2));
    const json = await request("/page/Truth_tag/history", { headers: { accept: "application/json" } });
    const html = await request("/page/Truth_tag/history", { headers: { accept: "text/html" } });
    expect(html.headers.get("cache-tag")).toBeTruthy();
    expect(html.headers.get("cache-tag")).toBe(json.headers.get("cache-tag"));
  });
});

describe("the latest gets dcb", () => {
  it("its Use-As-Dictionary covers the latest's URL, and the latest comes as a delta against a revision the client holds", async () => {
    await appendOk("Truth_dcb", linearHistory(5, 1, text));
    const held = await request("/page/Truth_dcb/4");
    expect(held.headers.get("use-as-dictionary")).toBe('match="/page/Truth_dcb{/*}?"');
    const dictionary = new Uint8Array(await held.arrayBuffer());
    const identity = new Uint8Array(await (await request("/page/Truth_dcb")).arrayBuffer());
    const res = await request("/page/Truth_dcb", {
      headers: { "accept-encoding": "br, gzip, dcb", "available-dictionary": await availableDictionary(dictionary) },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("dcb");
    expect(res.headers.get("cache-control")).toContain("max-age=60");
    expect(res.headers.get("vary")).toContain("Available-Dictionary");
    const decoded = await dcbDecompress(new Uint8Array(await res.arrayBuffer()), dictionary);
    expect(decoded).toEqual(identity);
  });
});
