import { describe, expect, it } from "vitest";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { API_ACCEPTS, browse, htmlOf, links, requestAccepting } from "./support/browse-pages.ts";

/** Revisions spread over three years, two per year. */
function yearsHistory(firstId: number) {
  return linearHistory(6, firstId, (i) => `== Year text ==\nLine ${i}\n`).map((r, i) => ({
    ...r,
    timestamp: `${2015 + Math.floor(i / 2)}-0${1 + (i % 2)}-10T12:00:00Z`,
  }));
}

describe("a page's history as HTML", () => {
  it("lists every revision, linked, in a timeline by year, with its Memento URLs, for a browser", async () => {
    await appendOk("Hist_html_years", yearsHistory(100));
    const res = await browse("/page/Hist_html_years/history");
    const html = await htmlOf(res);
    expect(res.headers.get("vary")).toMatch(/\bAccept\b/);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain("<h1>History of <bdi>Hist html years</bdi></h1>");
    const years = [...html.matchAll(/<h3 id="y(\d{4})">/g)].map((m) => m[1]);
    expect(years).toEqual(["2017", "2016", "2015"]);
    const hrefs = links(html);
    for (let id = 100; id < 106; id++) expect(hrefs).toContain(`/page/Hist_html_years/${id}`);
    for (let id = 101; id < 106; id++) expect(hrefs).toContain(`/page/Hist_html_years/compare/${id - 1}...${id}`);
    expect(hrefs).toContain("/timemap/link/Hist_html_years");
    expect(hrefs).toContain("/timemap/json/Hist_html_years");
    expect(hrefs).toContain("/page/Hist_html_years");
  });

  it("serves JSON at the same URL to API clients, also varying on Accept", async () => {
    await appendOk("Hist_html_json", linearHistory(2, 1));
    for (const accept of API_ACCEPTS) {
      const res = await requestAccepting("/page/Hist_html_json/history", accept);
      expect(res.status, accept).toBe(200);
      expect(res.headers.get("content-type"), accept).toMatch(/^application\/json/);
      expect(res.headers.get("vary"), accept).toMatch(/\bAccept\b/);
      expect((await res.json<{ revisions: unknown[] }>()).revisions, accept).toHaveLength(2);
    }
    for (const accept of ["text/html", "application/json;q=0.5, text/html", "text/*"]) {
      const res = await request("/page/Hist_html_json/history", { headers: { accept } });
      expect(res.headers.get("content-type"), accept).toMatch(/^text\/html/);
      await res.body?.cancel();
    }
  });

  it("is built from the JSON's cached history: after an API read it costs no origin work", async () => {
    await appendOk("Hist_html_cached", linearHistory(3, 1));
    const json = await request("/page/Hist_html_cached/history");
    expect(json.headers.get("x-palimpsest-tier")).toBe("origin");
    await json.body?.cancel();
    const res = await browse("/page/Hist_html_cached/history");
    // A tier above the origin answered (this colo's, or the regional one while the colo's copy is still being stored).
    expect(["lower", "regional", "upper"]).toContain(res.headers.get("x-palimpsest-tier"));
    expect(links(await htmlOf(res))).toContain("/page/Hist_html_cached/3");
  });

  it("pages with the JSON's cursors, every revision reachable", async () => {
    await appendOk("Hist_html_pages", linearHistory(5, 1));
    const seen: string[] = [];
    let path: string | undefined = "/page/Hist_html_pages/history?limit=2";
    let pages = 0;
    while (path) {
      const html = await htmlOf(await browse(path));
      pages++;
      seen.push(...[...html.matchAll(/<tr data-revision="(\d+)"/g)].map((m) => m[1]!));
      path = links(html).find((h) => h.includes("older="));
      if (pages > 5) throw new Error("the older links never end");
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(["5", "4", "3", "2", "1"]);
  });

  it("redirects a non-canonical title, and refuses a bad limit with the JSON's code, as a page", async () => {
    await appendOk("Hist_html_canon", linearHistory(1, 1));
    const moved = await browse("/page/hist_html_canon/history?limit=3");
    expect(moved.status).toBe(301);
    expect(moved.headers.get("location")).toBe("http://archive.test/page/Hist_html_canon/history?limit=3");
    const bad = await browse("/page/Hist_html_canon/history?limit=501");
    const html = await htmlOf(bad, 400);
    expect(html).toContain("invalid_limit");
    expect(html).toContain("history.maxPageSize");
  });
});
