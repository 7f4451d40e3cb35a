/**
 * The revision viewer and "the page as of a date", through
 * the Worker with its real bindings: `/view/{title}/{revid}` shows one
 * revision with its facts escaped, its visible neighbours and its content
 * shown safely under a strict CSP; `/view/{title}?at=` and the as-of form
 * redirect by the TimeGate's rule; suppressed revisions are never linked with
 * their content; refusals are problem pages; and the store answers a
 * revision's place and a page's years from its indexes, reading a few rows
 * however long the history.
 */
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/limits.ts";
import type { NewRevision } from "../../../src/page/types.ts";
import { withCountedRows } from "../support/page-shards.ts";
import { pageTimeline } from "../../../src/page-store/timeline.ts";
import { TOKEN, appendOk, linearHistory, request } from "../support/archive.ts";
import { waitForAck } from "../support/tiers.ts";
import { browse, htmlOf, links, textOf } from "./support/browse-pages.ts";

const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

/** One revision a year, 1 July of 2016..2022, ids firstId..; `overrides` replace fields of the i-th. */
function yearly(firstId: number, overrides: Record<number, Partial<NewRevision>> = {}): NewRevision[] {
  return Array.from({ length: 7 }, (_, i) => ({
    id: firstId + i,
    parentId: i === 0 ? null : firstId + i - 1,
    timestamp: `${2016 + i}-07-01T12:00:00Z`,
    contributor: `Scribe ${i}`,
    comment: `yearly edit ${i}`,
    model: "wikitext" as const,
    text: `Text of ${2016 + i}.\n`,
    ...overrides[i],
  }));
}

async function suppress(page: string, id: number): Promise<void> {
  const res = await request(`/api/pages/${page}/revisions/${id}/suppression`, {
    method: "PUT",
    headers: auth,
    body: JSON.stringify({ suppressed: true, reason: "a test takedown" }),
  });
  expect(res.status, `suppress ${id}`).toBe(200);
  for (const purge of (await res.json<{ purges: string[] }>()).purges) await waitForAck(purge);
}

/** The CSP every browse page carries, and what the viewer may add: frames of its own origin, nothing else. */
function expectStrictCsp(res: Response, frames: boolean): void {
  const csp = res.headers.get("content-security-policy")!;
  expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; img-src 'self'; /);
  expect(csp).not.toMatch(/script-src|unsafe|\*/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp.includes("frame-src 'self'")).toBe(frames);
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
}

describe("the revision viewer", () => {
  it("shows a revision's facts, neighbours, links and text, all escaped, under the browse pages' CSP", async () => {
    const page = 'View_hostile_&_"quoted"';
    const key = encodeURIComponent(page);
    await appendOk(
      page,
      yearly(10, {
        3: {
          contributor: `<img src=x onerror=alert(1)>`,
          comment: `"><script>alert("comment")</script> & more`,
          text: `</pre><script>alert("text")</script>\n<iframe src="//evil"></iframe> & done\n`,
        },
      }),
    );
    const res = await browse(`/view/${key}/13`);
    const html = await htmlOf(res);
    expectStrictCsp(res, false);
    expect(res.headers.get("cache-control")).toBe("private, max-age=60");
    expect(html).toContain(`<h1><bdi>View hostile &amp; &quot;quoted&quot;</bdi>: revision 13</h1>`);
    expect(html).toContain(`<time datetime="2019-07-01T12:00:00Z">2019-07-01 12:00:00 UTC</time>`);
    expect(html).toContain(`<bdi>&lt;img src=x onerror=alert(1)&gt;</bdi>`);
    expect(html).toContain(`<bdi>&quot;&gt;&lt;script&gt;alert(&quot;comment&quot;)&lt;/script&gt; &amp; more</bdi>`);
    expect(html).toContain(
      `<pre class="archived">&lt;/pre&gt;&lt;script&gt;alert(&quot;text&quot;)&lt;/script&gt;\n&lt;iframe src=&quot;//evil&quot;&gt;&lt;/iframe&gt; &amp; done\n</pre>`,
    );
    // Nothing the writer wrote became markup.
    expect(html).not.toMatch(/<script|<img|<iframe/);
    expect(textOf(html)).toContain("edit 4 of 7");
    const hrefs = links(html);
    expect(hrefs).toEqual(
      expect.arrayContaining([
        `/view/${key}/12`, // previous edit
        `/view/${key}/14`, // next edit
        `/page/${key}/compare/12...13`,
        `/page/${key}/history`,
        `/page/${key}/13`, // raw
        `/view/${key}/16`, // latest
        `/web/20190701120000/${key}`,
      ]),
    );
    expect(html).toMatch(/<a href="\/view\/[^"]+\/12" rel="prev">/);
    expect(html).toMatch(/<a href="\/view\/[^"]+\/14" rel="next">/);
    // The as-of form: GET to /view/{title}, year, month and day, each labelled.
    expect(html).toContain(`<form class="asof" method="get" action="/view/${key}">`);
    for (const field of ["year", "month", "day"]) expect(html).toMatch(new RegExp(`<label for="asof-${field}">`));
    // Years with edits, each linked to its first edit.
    for (let i = 0; i < 7; i++) expect(hrefs).toContain(`/view/${key}/${10 + i}`);
    expect(html).toMatch(/<a href="\/view\/[^"]+\/13" aria-current="true">2019/);
  });

  it("frames an HTML revision's raw URL in a sandbox, never inlining it, and keeps the page's own CSP strict", async () => {
    const page = "View_html_page";
    const hostile = `<!doctype html><title>x</title><p>MARKER-HTML</p><script>parent.document.title="owned"</script>`;
    await appendOk(page, [
      { ...yearly(1)[0]!, model: "html", text: hostile },
      { ...yearly(1)[1]!, model: "html", text: hostile.replace("MARKER", "SECOND") },
    ]);
    const res = await browse(`/view/${page}/1`);
    const html = await htmlOf(res);
    expectStrictCsp(res, true);
    expect(html).toMatch(
      /<iframe class="archived" src="\/page\/View_html_page\/1" sandbox="" referrerpolicy="no-referrer" loading="lazy" title="Revision 1 of View html page, as archived">/,
    );
    expect(html).not.toContain("MARKER-HTML");
    expect(html).not.toContain("<script");
    // What the frame loads is sandboxed by its own answer too.
    const raw = await request(`/page/${page}/1`);
    expect(raw.headers.get("content-security-policy")).toMatch(
      /^sandbox; default-src 'self' data:; script-src 'none';/,
    );
    expect(await raw.text()).toBe(hostile);
    // Every other model is escaped text: the page frames nothing.
    const models = { css: "a{}</pre><style>", javascript: 'alert("x")</pre><script>', json: '{"a":"</pre><b>"}' };
    for (const [model, text] of Object.entries(models)) {
      const title = `View_${model}_page`;
      await appendOk(title, [{ ...yearly(1)[0]!, model: model as NewRevision["model"], text }]);
      const res = await browse(`/view/${title}/1`);
      const shown = await htmlOf(res);
      expectStrictCsp(res, false);
      expect(shown, model).not.toContain("<iframe");
      expect(shown, model).toMatch(/<pre class="archived">[^<]*&lt;\/pre&gt;&lt;[a-z]+&gt;[^<]*<\/pre>/);
    }
  });

  it("never links a suppressed revision with its content: neighbours step over it, its own viewer is a 410 without it", async () => {
    const page = "View_suppressed";
    await appendOk(page, yearly(1, { 2: { text: "SECRET WORDS\n" } }));
    // Read before the suppression, so the tiers hold the old answers: its purge must reach them.
    expect(links(await htmlOf(await browse(`/view/${page}/2`)))).toContain(`/view/${page}/3`);
    expect(await htmlOf(await browse(`/view/${page}/3`))).toContain("SECRET WORDS");
    await suppress(page, 3);

    const gone = await browse(`/view/${page}/3`);
    const goneHtml = await htmlOf(gone, 410);
    expect(goneHtml).not.toContain("SECRET WORDS");
    expect(goneHtml).not.toContain("<iframe");
    expect(goneHtml).toContain("content is suppressed");
    expect(goneHtml).toContain("<bdi>Scribe 2</bdi>");
    const goneLinks = links(goneHtml);
    expect(goneLinks).not.toContain(`/page/${page}/3`);
    expect(goneLinks).not.toContain(`/web/20180701120000/${page}`);
    expect(goneLinks).not.toContain(`/page/${page}/compare/2...3`);
    expect(goneLinks).toEqual(expect.arrayContaining([`/view/${page}/2`, `/view/${page}/4`]));

    const before = links(await htmlOf(await browse(`/view/${page}/2`)));
    expect(before).toContain(`/view/${page}/4`);
    expect(before).not.toContain(`/view/${page}/3`);
    const after = links(await htmlOf(await browse(`/view/${page}/4`)));
    expect(after).toContain(`/view/${page}/2`);
    expect(after).toContain(`/page/${page}/compare/2...4`);
    expect(after).not.toContain(`/view/${page}/3`);
    // The years skip 2018, whose only edit is suppressed; the history links neither its viewer nor its /web/ URL.
    expect(await htmlOf(await browse(`/view/${page}/4`))).not.toMatch(/>2018<span/);
    const history = links(await htmlOf(await browse(`/page/${page}/history`)));
    expect(history).not.toContain(`/view/${page}/3`);
    expect(history).not.toContain(`/web/20180701120000/${page}`);
    expect(history).toContain(`/view/${page}/4`);
  });

  it("answers a revision that is not there, a page nobody wrote and a deleted page as problem pages", async () => {
    await appendOk("View_missing", yearly(1));
    const cases: Array<[path: string, status: number, code: string]> = [
      ["/view/View_missing/99", 404, "revision_not_found"],
      ["/view/Nobody_wrote_this_view/1", 404, "page_not_found"],
      ["/view/Nobody_wrote_this_view", 404, "page_not_found"],
      ["/view/View_missing/abc", 400, "invalid_revision_id"],
      ["/view/View_missing/99999999999999999999", 422, "revision_id_out_of_range"],
      ["/view/View_missing/1?asof=2019", 400, "invalid_timestamp"],
      ["/view/View_missing?at=yesterday", 400, "invalid_timestamp"],
      ["/view/View_missing?year=2019&month=2&day=30", 400, "invalid_date"],
      ["/view/View_missing?year=19x", 400, "invalid_date"],
      ["/view/View_missing?year=&month=3", 400, "invalid_date"],
      ["/view/View_missing?month=13&year=2019", 400, "invalid_date"],
    ];
    for (const [path, status, code] of cases) {
      const page = await browse(path);
      const html = await htmlOf(page, status);
      expect(html, path).toContain(`<code>${code}</code>`);
      const api = await request(path);
      expect(api.status, path).toBe(status);
      expect(api.headers.get("content-type"), path).toBe("application/problem+json");
      expect((await api.json<{ code: string }>()).code, path).toBe(code);
    }
    await appendOk("View_deleted", yearly(1));
    expect((await browse("/view/View_deleted/2")).status).toBe(200);
    const res = await request("/api/pages/View_deleted?reason=a%20test%20deletion", {
      method: "DELETE",
      headers: auth,
    });
    expect(res.status).toBe(200);
    await waitForAck((await res.json<{ purges: string[] }>()).purges[0]!);
    for (const path of ["/view/View_deleted/2", "/view/View_deleted?at=2019"])
      expect(await htmlOf(await browse(path), 410), path).toContain("<code>page_deleted</code>");
  });

  it("redirects a title to its canonical form, under /view/", async () => {
    await appendOk("View_canon", yearly(1));
    const res = await browse("/view/view_canon/2?asof=20190101000000");
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("http://archive.test/view/View_canon/2?asof=20190101000000");
    expect((await browse("/view/view_canon")).headers.get("location")).toBe("http://archive.test/view/View_canon");
  });
});

describe("the page as of a date", () => {
  it("redirects ?at=, the year/month/day form and the latest to the revision the TimeGate chooses", async () => {
    const page = "View_as_of";
    // Revision 4 (2019) is dated before its parent: it exists for time travel only from its parent's 2021 date.
    await appendOk(page, [
      ...yearly(1).slice(0, 3), // 1: 2016, 2: 2017, 3: 2018
      { ...yearly(1)[3]!, id: 4, parentId: 3, timestamp: "2021-03-01T00:00:00Z" },
      { ...yearly(1)[4]!, id: 5, parentId: 4, timestamp: "2019-05-01T00:00:00Z" },
      { ...yearly(1)[5]!, id: 6, parentId: 5, timestamp: "2022-01-01T00:00:00Z" },
    ]);
    const cases: Array<[query: string, id: number, asked: string]> = [
      ["at=2019", 3, "20190101000000"],
      ["at=2019-06-01", 3, "20190601000000"],
      ["at=20210301000000", 5, "20210301000000"], // 4 and 5 both exist from 2021-03-01: the later one
      ["at=2021-03-01T00:00:00Z", 5, "20210301000000"],
      ["year=2019", 3, "20190101000000"],
      ["year=2020&month=&day=", 3, "20200101000000"],
      ["year=2021&month=3&day=", 5, "20210301000000"],
      ["year=2021&month=02&day=28", 3, "20210228000000"],
      ["year=1999", 1, "19990101000000"], // before the first revision: the first
      ["year=2030", 6, "20300101000000"],
    ];
    for (const [query, id, asked] of cases) {
      const res = await browse(`/view/${page}?${query}`);
      expect(res.status, query).toBe(303);
      expect(res.headers.get("location"), query).toBe(`/view/${page}/${id}?asof=${asked}`);
      expect(res.headers.get("cache-control"), query).toBe("public, max-age=60, stale-while-revalidate=240");
      // The same choice as /web/ (the TimeGate's).
      const web = await request(`/web/${asked}/${page}`);
      expect(web.headers.get("location"), query).toBe(`http://archive.test/page/${page}/${id}`);
    }
    const latest = await browse(`/view/${page}`);
    expect(latest.status).toBe(303);
    expect(latest.headers.get("location")).toBe(`/view/${page}/6`);

    // The viewer says what was asked, and when none is that old.
    expect(textOf(await htmlOf(await browse(`/view/${page}/3?asof=20190101000000`)))).toContain(
      "You asked for the page as of 2019-01-01 00:00:00 UTC . This is the revision current then",
    );
    expect(textOf(await htmlOf(await browse(`/view/${page}/1?asof=19990101000000`)))).toContain(
      "No revision of it is that old: this is its first.",
    );
    // Revision 5 is dated before its parent: its Wayback URL is its effective time, which answers it.
    const five = await htmlOf(await browse(`/view/${page}/5`));
    expect(textOf(five)).toContain("current from 2021-03-01 00:00:00 UTC");
    expect(links(five)).toContain(`/web/20210301000000/${page}`);
    // Revision 4 has no Wayback URL of its own: 5 is current from the same second.
    const four = await htmlOf(await browse(`/view/${page}/4`));
    expect(links(four).some((h) => h.startsWith("/web/"))).toBe(false);
    expect(textOf(four)).toContain("none of its own");
  });

  it("answers 404 for a page whose every revision is suppressed", async () => {
    const page = "View_all_hidden";
    await appendOk(page, yearly(1).slice(0, 2));
    await suppress(page, 1);
    await suppress(page, 2);
    for (const path of [`/view/${page}`, `/view/${page}?year=2017`])
      expect(await htmlOf(await browse(path), 404), path).toContain("<code>revision_not_found</code>");
  });
});

describe("the history page's time travel", () => {
  it("has a date jump, the years with edits linked to their first edit, and each revision's viewer and /web/ URL", async () => {
    const page = "View_history_years";
    // Two edits a year, 2016..2019.
    const revisions = linearHistory(8, 1).map((r, i) => ({
      ...r,
      timestamp: `${2016 + Math.floor(i / 2)}-0${3 + (i % 2) * 6}-15T08:30:00Z`,
    }));
    await appendOk(page, revisions);
    const html = await htmlOf(await browse(`/page/${page}/history`));
    expect(html).toContain(`<form class="asof" method="get" action="/view/${page}">`);
    expect(html).toMatch(/<label for="jump-year">Year<\/label>/);
    const years = [...html.matchAll(/<a href="\/view\/View_history_years\/(\d+)">(\d{4})<span/g)].map((m) => [
      Number(m[1]),
      m[2],
    ]);
    expect(years).toEqual([
      [1, "2016"],
      [3, "2017"],
      [5, "2018"],
      [7, "2019"],
    ]);
    const hrefs = links(html);
    for (const r of revisions) {
      expect(hrefs).toContain(`/view/${page}/${r.id}`);
      expect(hrefs).toContain(`/web/${r.timestamp.replace(/[-:TZ]/g, "")}/${page}`);
    }
    expect(hrefs).toContain(`/view/${page}/8`); // the latest, in the viewer
  });

  it("links the viewer from the front page and search results", async () => {
    await appendOk("View_linked_from_search", yearly(1).slice(0, 1));
    const search = links(await htmlOf(await browse("/search?q=View_linked_from_s")));
    expect(search).toContain("/view/View_linked_from_search");
    const front = links(await htmlOf(await browse("/")));
    expect(front.some((h) => h.startsWith("/view/"))).toBe(true);
  });
});

describe("bounded work", () => {
  it("the store reads a few rows for a revision's place and the years on a 3,000-revision history over nine years", async () => {
    const key = "View_indexed";
    // One revision a day from 2015-01-01: 3,000 days span 2015..2023.
    const history = linearHistory(3_000).map((r, i) => ({
      ...r,
      timestamp: new Date(Date.UTC(2015, 0, 1) + i * 86_400_000).toISOString().replace(".000Z", "Z"),
    }));
    for (let i = 0; i < history.length; i += 500) await appendOk(key, history.slice(i, i + 500));
    await suppress(key, 1_501);
    const rows = await withCountedRows(key, (db, measure) => ({
      years: measure(() => pageTimeline(db)),
      start: measure(() => pageTimeline(db, 1)),
      middle: measure(() => pageTimeline(db, 1_500)),
      end: measure(() => pageTimeline(db, 3_000)),
    }));
    expect(rows.years.result).toMatchObject({
      total: 3_000,
      latest: { id: 3_000 },
      moreYears: false,
      years: Array.from({ length: 9 }, (_, i) => ({ year: 2015 + i })),
    });
    expect(rows.middle.result).toMatchObject({
      place: { revision: { id: 1_500 }, position: 1_500, prev: { id: 1_499 }, next: { id: 1_502 } },
    });
    expect(rows.start.result).toMatchObject({ place: { prev: null, next: { id: 2 } } });
    expect(rows.end.result).toMatchObject({ place: { prev: { id: 2_999 }, next: null } });
    // Nine years, the latest and three neighbours: a few dozen rows of 3,000.
    for (const [what, { read }] of Object.entries(rows)) expect(read, what).toBeLessThan(60);
    expect(LIMITS.browse.timelineYears).toBeGreaterThanOrEqual(9);

    // Through HTTP, the viewer in the middle of the long history.
    const hrefs = links(await htmlOf(await browse(`/view/${key}/1500`)));
    expect(hrefs).toEqual(expect.arrayContaining([`/view/${key}/1499`, `/view/${key}/1502`]));
  }, 120_000);

  it("shows at most browse.viewMaxShownChars of a long text, and says so", async () => {
    const page = "View_long_text";
    const line = "0123456789abcdef<>&\n";
    const text = line.repeat(Math.ceil((LIMITS.browse.viewMaxShownChars + 1_000) / line.length));
    await appendOk(page, [{ ...yearly(1)[0]!, text }]);
    const html = await htmlOf(await browse(`/view/${page}/1`));
    expect(html).toContain("<code>browse.viewMaxShownChars</code>");
    const shown = /<pre class="archived">([\s\S]*?)<\/pre>/.exec(html)![1]!;
    const unescaped = shown.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    expect(unescaped).toBe(text.slice(0, LIMITS.browse.viewMaxShownChars));
  });
});
