import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/limits.ts";
import { appendOk, linearHistory } from "../support/archive.ts";
import { browse, htmlOf, links, textOf } from "./support/browse-pages.ts";

/** Directory figures are reported after the write answers; wait until the front page shows the page. */
async function homeOnceListed(key: string, timeoutMs = 5_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const html = await htmlOf(await browse("/"));
    if (links(html).includes(`/page/${key}/history`)) return html;
    if (Date.now() > until) throw new Error(`the front page never listed ${key}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("the front page", () => {
  it("says what the archive is, offers a labelled title search, and lists a page just changed with the totals", async () => {
    await appendOk(
      "Front_recent",
      linearHistory(4, 1, (i) => `Front page text ${i}\n`.repeat(20)),
    );
    const html = await homeOnceListed("Front_recent");
    expect(html).toContain('<html lang="en">');
    expect(html).toMatch(/<main id="main"/);
    expect(textOf(html)).toContain("Palimpsest is an archive of page revisions");
    expect(html).toMatch(/<label for="q">Title starts with<\/label>/);
    expect(html).toMatch(/<form class="search" method="get" action="\/search">/);
    const revisions = /<dt>Revisions<\/dt>\s*<dd>\s*<data value="(\d+)">/.exec(html);
    expect(Number(revisions?.[1])).toBeGreaterThanOrEqual(4);
    const stored = /<dt>Stored<\/dt>\s*<dd>\s*<data value="(\d+)">/.exec(html);
    expect(Number(stored?.[1])).toBeGreaterThan(0);
    expect(textOf(html)).toMatch(/Front recent 4 revisions, changed/);
  });

  it("lists the most recently changed page first", async () => {
    await appendOk("Front_older", linearHistory(1, 1));
    await homeOnceListed("Front_older");
    await appendOk("Front_newer", linearHistory(1, 1));
    const html = await homeOnceListed("Front_newer");
    const order = links(html).filter((h) => h.endsWith("/history"));
    expect(order.indexOf("/page/Front_newer/history")).toBeLessThan(order.indexOf("/page/Front_older/history"));
  });
});

describe("title search", () => {
  it("finds titles by prefix across the directory's shards, in title order, the first letter in either case", async () => {
    const titles = ["Srch_alpha", "Srch_beta", "Srch_gamma", "Srch_delta_2", "Srch_delta"];
    for (const t of titles) await appendOk(t, linearHistory(1, 1));
    await appendOk("Srcx_other", linearHistory(1, 1));
    const html = await htmlOf(await browse("/search?q=srch_"));
    const found = links(html).filter((h) => /^\/page\/Srch_[a-z_0-9]+\/history$/.test(h));
    expect(found).toEqual([...titles].sort().map((t) => `/page/${t}/history`));
    expect(links(html)).not.toContain("/page/Srcx_other/history");
    // A trailing underscore (a space) is part of the prefix.
    await appendOk("Srchfold", linearHistory(1, 1));
    expect(links(await htmlOf(await browse("/search?q=Srch%20")))).not.toContain("/page/Srchfold/history");
    expect(links(await htmlOf(await browse("/search?q=Srch")))).toContain("/page/Srchfold/history");
    // Spaces are underscores in titles, as everywhere else.
    const spaced = await htmlOf(await browse("/search?q=Srch%20delta"));
    expect(links(spaced).filter((h) => h.startsWith("/page/Srch_") && h.endsWith("/history"))).toEqual([
      "/page/Srch_delta/history",
      "/page/Srch_delta_2/history",
    ]);
  });

  it(`shows ${LIMITS.browse.searchResults} titles a page, then the rest after the next link`, async () => {
    const n = LIMITS.browse.searchResults + 2;
    const keys = Array.from({ length: n }, (_, i) => `Many_${String(i).padStart(2, "0")}`);
    await Promise.all(keys.map((k) => appendOk(k, linearHistory(1, 1))));
    const first = await htmlOf(await browse("/search?q=Many_"));
    const page1 = links(first).filter((h) => /^\/page\/Many_\d+\/history$/.test(h));
    expect(page1).toEqual(keys.slice(0, LIMITS.browse.searchResults).map((k) => `/page/${k}/history`));
    const next = links(first).find((h) => h.startsWith("/search?"));
    expect(next).toBe(`/search?q=Many_&after=${keys[LIMITS.browse.searchResults - 1]}`);
    const second = await htmlOf(await browse(next!));
    expect(links(second).filter((h) => /^\/page\/Many_\d+\/history$/.test(h))).toEqual(
      keys.slice(LIMITS.browse.searchResults).map((k) => `/page/${k}/history`),
    );
    expect(links(second).some((h) => h.startsWith("/search?"))).toBe(false);
  });

  it("says so when nothing matches", async () => {
    const html = await htmlOf(await browse("/search?q=Zzz_nothing_here"));
    expect(textOf(html)).toContain("No title in the archive starts with “Zzz_nothing_here”.");
  });

  it("answers an empty, overlong or impossible query with the form and a clear message", async () => {
    for (const path of ["/search", "/search?q=", "/search?q=%20%20"]) {
      const html = await htmlOf(await browse(path), 400);
      expect(textOf(html), path).toContain("Type the first letters of a title.");
      expect(html, path).toContain('aria-invalid="true"');
    }
    const long = await htmlOf(await browse(`/search?q=${"a".repeat(LIMITS.page.maxTitleBytes + 1)}`), 400);
    expect(textOf(long)).toContain(`A title is at most ${LIMITS.page.maxTitleBytes} bytes long`);
    const illegal = await htmlOf(await browse("/search?q=a%23b"), 400);
    expect(textOf(illegal)).toContain('No title can start with this: title contains the illegal character "#"');
  });
});
