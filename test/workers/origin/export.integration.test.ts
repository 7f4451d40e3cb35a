/**
 * `GET /page/{title}/export` and `GET /api/pages` through the Worker, what
 * backup and MediaWiki's importDump.php rely on: the XML is MediaWiki 0.11 as XmlDumpWriter
 * writes it, byte for byte; a suppressed revision is `<text deleted="deleted"
 * />` and `<sha1/>` with nothing its content determines, unless a
 * `backup`-scope token asks, when its content comes marked as suppressed;
 * `offset`, `limit` and `dir` select as Special:Export does and the answer
 * links the next one; the byte bound cuts an answer where the PageStore's
 * plan says.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { pageStoreOf } from "../../../src/bindings.ts";
import { stablePageId } from "../../../src/origin/export-xml.ts";
import { CACHE_CONTROL } from "../../../src/representation/cache-control.ts";
import { sha1Base36, sha256Hex } from "../../../src/lib/digests.ts";
import type { ExportPlan } from "../../../src/page/export-types.ts";
import type { NewRevision } from "../../../src/page/types.ts";
import type { PageListBody } from "../../../src/wire.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { TOKENS, bearer } from "../support/tokens.ts";

/** This file's own client address: anonymous exports are limited per client (export.anonymousPerMinute). */
const exportOf = (page: string, query = "", headers: Record<string, string> = {}) =>
  request(`/page/${page}/export${query}`, { headers: { "cf-connecting-ip": "192.0.2.80", ...headers } });

async function suppress(page: string, id: number): Promise<void> {
  const res = await request(`/api/pages/${page}/revisions/${id}/suppression`, {
    method: "PUT",
    headers: { ...bearer(TOKENS.write), "content-type": "application/json" },
    body: JSON.stringify({ suppressed: true, reason: "a test takedown" }),
  });
  expect(res.status, `suppress ${id}`).toBe(200);
}

/** A problem answer's status and code (its wording is the validators' and the token middleware's, tested there). */
async function expectProblem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = await res.json<Record<string, unknown>>();
  expect(body.code).toBe(code);
  return body;
}

const revisionIds = (xml: string) => [...xml.matchAll(/<revision>\n {6}<id>(\d+)<\/id>/g)].map((m) => Number(m[1]));

const NAMESPACES =
  `      <namespace key="-2" case="first-letter">Media</namespace>\n` +
  `      <namespace key="-1" case="first-letter">Special</namespace>\n` +
  `      <namespace key="0" case="first-letter" />\n` +
  [
    "Talk",
    "User",
    "User talk",
    "Project",
    "Project talk",
    "File",
    "File talk",
    "MediaWiki",
    "MediaWiki talk",
    "Template",
    "Template talk",
    "Help",
    "Help talk",
    "Category",
    "Category talk",
  ]
    .map((name, i) => `      <namespace key="${i + 1}" case="first-letter">${name}</namespace>\n`)
    .join("") +
  `      <namespace key="828" case="first-letter">Module</namespace>\n` +
  `      <namespace key="829" case="first-letter">Module talk</namespace>\n`;

describe("the export is MediaWiki 0.11 as dumpBackup.php writes it", () => {
  it("writes every revision's metadata and text, escaped, byte for byte", async () => {
    const page = "Export_exact";
    const texts = ["a & b < c > d\r\nline two\tend\n", "ctl\u0001 and \uffff here\n"];
    const revisions: NewRevision[] = [
      {
        id: 7,
        parentId: null,
        timestamp: "2019-05-06T17:40:58Z",
        contributor: "Ada <Lovelace> & co",
        comment: "first & <best>",
        model: "wikitext",
        text: texts[0]!,
      },
      {
        id: 9,
        parentId: 7,
        timestamp: "2019-05-07T00:00:00Z",
        contributor: "192.0.2.44",
        comment: "",
        model: "wikitext",
        text: texts[1]!,
        tags: ["team:docs", "batch:7"],
      },
    ];
    await appendOk(page, revisions);
    const bytes = (s: string) => new TextEncoder().encode(s);
    const sha1s = await Promise.all(texts.map((t) => sha1Base36(bytes(t))));
    const res = await exportOf(page);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="Export_exact.xml"; filename*=UTF-8''Export_exact.xml`,
    );
    // Anonymous: kept in the tiers, and purged by a write (anonymous-export-cost.integration.test.ts).
    expect(res.headers.get("cache-control")).toBe(CACHE_CONTROL.changing);
    expect(res.headers.get("content-security-policy")).toMatch(/^sandbox\b/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("link")).toBeNull();
    expect(await res.text()).toBe(
      `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:palimpsest="urn:palimpsest:export:1" xsi:schemaLocation="http://www.mediawiki.org/xml/export-0.11/ http://www.mediawiki.org/xml/export-0.11.xsd" version="0.11" xml:lang="en">\n` +
        `  <siteinfo>\n    <sitename>Palimpsest</sitename>\n    <generator>Palimpsest export 1</generator>\n    <case>first-letter</case>\n` +
        `    <namespaces>\n${NAMESPACES}    </namespaces>\n  </siteinfo>\n` +
        // A page no wiki numbered: the stable id of its title.
        `  <page>\n    <title>Export exact</title>\n    <ns>0</ns>\n    <id>${await stablePageId("Export_exact")}</id>\n` +
        `    <revision>\n      <id>7</id>\n      <timestamp>2019-05-06T17:40:58Z</timestamp>\n` +
        `      <contributor>\n        <username>Ada &lt;Lovelace&gt; &amp; co</username>\n        <id>0</id>\n      </contributor>\n` +
        `      <comment>first &amp; &lt;best&gt;</comment>\n      <origin>7</origin>\n      <model>wikitext</model>\n      <format>text/x-wiki</format>\n` +
        `      <text bytes="${bytes(texts[0]!).byteLength}" sha1="${sha1s[0]}" xml:space="preserve">a &amp; b &lt; c &gt; d&#13;\nline two\tend\n</text>\n` +
        `      <sha1>${sha1s[0]}</sha1>\n    </revision>\n` +
        `    <revision>\n      <id>9</id>\n      <parentid>7</parentid>\n      <timestamp>2019-05-07T00:00:00Z</timestamp>\n` +
        `      <contributor>\n        <ip>192.0.2.44</ip>\n      </contributor>\n` +
        `      <origin>9</origin>\n      <model>wikitext</model>\n      <format>text/x-wiki</format>\n` +
        // XML 1.0 carries neither U+0001 nor U+FFFF: U+FFFD stands for them, and the sha1 still names the stored text.
        `      <text bytes="${bytes(texts[1]!).byteLength}" sha1="${sha1s[1]}" xml:space="preserve">ctl\ufffd and \ufffd here\n</text>\n` +
        `      <sha1>${sha1s[1]}</sha1>\n` +
        `      <palimpsest:tag>team:docs</palimpsest:tag>\n      <palimpsest:tag>batch:7</palimpsest:tag>\n    </revision>\n` +
        `  </page>\n</mediawiki>\n`,
    );
  });

  it("names a page in another namespace by its number; a title nobody wrote is a 404, a deleted page a 410", async () => {
    await appendOk("Help:Export_ns", linearHistory(1));
    const xml = await (await exportOf("Help:Export_ns")).text();
    expect(xml).toContain(
      `  <page>\n    <title>Help:Export ns</title>\n    <ns>12</ns>\n    <id>${await stablePageId("Help:Export_ns")}</id>\n    <revision>\n`,
    );
    await expectProblem(await exportOf("Export_nobody"), 404, "page_not_found");
    await appendOk("Export_deleted", linearHistory(2));
    const deleted = await request("/api/pages/Export_deleted?reason=a%20test%20deletion", {
      method: "DELETE",
      headers: bearer(TOKENS.write),
    });
    expect(deleted.status).toBe(200);
    await expectProblem(await exportOf("Export_deleted"), 410, "page_deleted");
  });
});

describe("suppressed revisions", () => {
  const page = "Export_suppressed";
  const secret = "== Revision 1 ==\nthe hidden words\n";
  // Written once the tests run, never while they are collected (`vitest list` writes nothing).
  beforeAll(async () => {
    await appendOk(
      page,
      linearHistory(3, 1, (i) => (i === 1 ? secret : `== Revision ${i} ==\nBody ${i}\n`)),
    );
    await suppress(page, 2);
  });

  it("are written as MediaWiki writes them, with nothing derived from their content", async () => {
    const secretBytes = new TextEncoder().encode(secret);
    const res = await exportOf(page);
    expect(res.status).toBe(200);
    const xml = await res.text();
    expect(revisionIds(xml)).toEqual([1, 2, 3]);
    const hidden = xml.slice(xml.indexOf("<id>2</id>"), xml.indexOf("<id>3</id>"));
    expect(hidden).toBe(
      `<id>2</id>\n      <parentid>1</parentid>\n      <timestamp>2020-01-01T00:00:01Z</timestamp>\n` +
        `      <contributor>\n        <username>Editor 1</username>\n        <id>0</id>\n      </contributor>\n` +
        `      <comment>edit 1</comment>\n      <origin>2</origin>\n      <model>wikitext</model>\n      <format>text/x-wiki</format>\n` +
        `      <text deleted="deleted" />\n      <sha1/>\n    </revision>\n    <revision>\n      `,
    );
    expect(xml).not.toContain("hidden words");
    expect(xml).not.toContain(await sha1Base36(secretBytes));
    expect(xml).not.toContain(await sha256Hex(secretBytes));
    expect(xml).not.toContain(`bytes="${secretBytes.byteLength}"`);
  });

  it("come with their content, marked as suppressed, for a backup-scope token only", async () => {
    const secretBytes = new TextEncoder().encode(secret);
    const res = await exportOf(page, "", bearer(TOKENS.backup));
    expect(res.status).toBe(200);
    const xml = await res.text();
    expect(xml).toContain(
      `      <text deleted="deleted" />\n      <sha1/>\n` +
        `      <palimpsest:suppressed bytes="${secretBytes.byteLength}" sha1="${await sha1Base36(secretBytes)}" xml:space="preserve">${secret}</palimpsest:suppressed>\n    </revision>\n`,
    );
    // Any other credentials are refused as every token route refuses them, never quietly answered as public.
    await expectProblem(await exportOf(page, "", bearer(TOKENS.write)), 403, "forbidden");
    await expectProblem(await exportOf(page, "", bearer(TOKENS.expired)), 401, "token_expired");
    await expectProblem(
      await exportOf(page, "", bearer("not-a-token-of-this-archive-000000000000")),
      401,
      "invalid_token",
    );
  });
});

describe("offset, limit and dir, as Special:Export takes them", () => {
  const page = "Export_paged";
  beforeAll(() => appendOk(page, linearHistory(5)));

  it("pages by limit, linking the next answer until the history ends", async () => {
    const first = await exportOf(page, "?limit=2");
    expect(first.headers.get("x-export-revisions")).toBe("2");
    expect(revisionIds(await first.text())).toEqual([1, 2]);
    const next = first.headers.get("link")!;
    expect(next).toBe(`<http://archive.test/page/${page}/export?offset=a2&limit=2&dir=asc>; rel="next"`);
    const url = new URL(next.slice(1, next.indexOf(">")));
    const second = await request(url.pathname + url.search);
    expect(revisionIds(await second.text())).toEqual([3, 4]);
    const last = await exportOf(page, "?offset=a4&limit=2");
    expect(revisionIds(await last.text())).toEqual([5]);
    expect(last.headers.get("link")).toBeNull();
  });

  it("takes a time as offset (after it; before it, descending) and answers newest first with dir=desc", async () => {
    expect(revisionIds(await (await exportOf(page, "?offset=2020-01-01T00:00:02Z")).text())).toEqual([4, 5]);
    expect(revisionIds(await (await exportOf(page, "?offset=20200101000002&dir=desc")).text())).toEqual([2, 1]);
    const desc = await exportOf(page, "?dir=desc&limit=3");
    expect(revisionIds(await desc.text())).toEqual([5, 4, 3]);
    expect(desc.headers.get("link")).toContain("offset=b3&limit=3&dir=desc");
    expect(revisionIds(await (await exportOf(page, "?offset=2030-01-01T00:00:00Z")).text())).toEqual([]);
  });

  it("refuses what it cannot answer, naming the field and the limit", async () => {
    await expectProblem(await exportOf(page, "?limit=1001"), 400, "invalid_limit");
    await expectProblem(await exportOf(page, "?limit=0"), 400, "invalid_limit");
    await expectProblem(await exportOf(page, "?offset=yesterday"), 400, "invalid_offset");
    await expectProblem(await exportOf(page, "?offset=a2&dir=desc"), 400, "invalid_offset");
    await expectProblem(await exportOf(page, "?dir=up"), 400, "invalid_dir");
  });
});

describe("an answer's bounds", () => {
  it("stops before export.maxBytes of text (at least one revision) and says where the next answer starts", async () => {
    const page = "Export_bytes";
    const sizes = [300, 300, 300, 900, 100];
    await appendOk(
      page,
      linearHistory(sizes.length, 1, (i) => `${i}`.padEnd(sizes[i]!, "x")),
    );
    const plan = (start: { after: number }, maxBytes: number) =>
      pageStoreOf(env, page).exportRevisions({
        kind: "plan",
        start,
        dir: "asc",
        limit: 1000,
        maxBytes,
        withSuppressed: false,
      }) as Promise<ExportPlan>;
    expect(await plan({ after: 0 }, 700)).toMatchObject({ count: 2, textBytes: 600, next: "a2" });
    expect(await plan({ after: 2 }, 700)).toMatchObject({ count: 1, textBytes: 300, next: "a3" });
    // One revision over the bound still has an answer of its own.
    expect(await plan({ after: 3 }, 700)).toMatchObject({ count: 1, textBytes: 900, next: "a4" });
    expect(await plan({ after: 4 }, 700)).toMatchObject({ count: 1, textBytes: 100, next: null });
  });
});

describe("GET /api/pages", () => {
  it("lists every page in key order, a bounded list at a time", async () => {
    for (const key of ["Listed_b", "Listed_a", "Listed_c"]) await appendOk(key, linearHistory(1));
    const all: string[] = [];
    for (let after: string | null = ""; after !== null;) {
      const res = await request(`/api/pages?limit=2&after=${encodeURIComponent(after)}`);
      expect(res.status).toBe(200);
      const body = await res.json<PageListBody>();
      expect(body.pages.length).toBeLessThanOrEqual(2);
      all.push(...body.pages.map((p) => p.key));
      after = body.next;
    }
    expect(all.filter((k) => k.startsWith("Listed_"))).toEqual(["Listed_a", "Listed_b", "Listed_c"]);
    expect([...all].sort()).toEqual(all);
    await expectProblem(await request("/api/pages?limit=501"), 400, "invalid_limit");
  });
});
