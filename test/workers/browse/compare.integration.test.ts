import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/limits.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { browse, htmlOf, links, textOf } from "./support/browse-pages.ts";
import { expectProblemCode } from "../support/problems.ts";

const BASE = Array.from({ length: 30 }, (_, i) => `Line ${i + 1} of the page.`);

function twoRevisions(firstId: number, before: string, after: string) {
  return linearHistory(2, firstId).map((r, i) => ({ ...r, text: i === 0 ? before : after }));
}

describe("comparing two revisions", () => {
  it("shows the changed line, removed and added, with line numbers and the changed words, and folds unchanged lines", async () => {
    const after = [...BASE];
    after[14] = "Line 15 of the book.";
    await appendOk("Cmp_one_line", twoRevisions(10, BASE.join("\n") + "\n", after.join("\n") + "\n"));
    const html = await htmlOf(await browse("/page/Cmp_one_line/compare/10...11"));
    expect(html).toMatch(
      /<tr class="del"><td class="ln">15<\/td><td class="ln"><\/td>.*?Line 15 of the <del>page<\/del>/s,
    );
    expect(html).toMatch(
      /<tr class="add"><td class="ln"><\/td><td class="ln">15<\/td>.*?Line 15 of the <ins>book<\/ins>/s,
    );
    expect(textOf(html)).toContain("1 lines removed, 1 added");
    // Three lines of context each side; the rest is folded.
    expect(textOf(html)).toContain("… 11 unchanged lines …");
    expect(textOf(html)).toContain("… 12 unchanged lines …");
    expect(html).toContain("Line 12 of the page.");
    expect(html).not.toContain("Line 11 of the page.");
    expect(links(html)).toEqual(
      expect.arrayContaining(["/page/Cmp_one_line/10", "/page/Cmp_one_line/11", "/page/Cmp_one_line/history"]),
    );
  });

  it("says so when two revisions are the same text", async () => {
    await appendOk("Cmp_same", twoRevisions(1, "Same\n", "Same\n"));
    expect(textOf(await htmlOf(await browse("/page/Cmp_same/compare/1...2")))).toContain("No differences");
  });

  it("answers 404 for a revision the page does not have, as a page for a browser and problem JSON for an API client", async () => {
    await appendOk("Cmp_missing", twoRevisions(1, "a\n", "b\n"));
    const html = await htmlOf(await browse("/page/Cmp_missing/compare/1...99"), 404);
    expect(textOf(html)).toContain("404");
    const api = await request("/page/Cmp_missing/compare/1...99");
    expect(api.status).toBe(404);
    expect(api.headers.get("content-type")).toBe("application/problem+json");
    const nobody = await browse("/page/Cmp_nobody_wrote/compare/1...2");
    expect(textOf(await htmlOf(nobody, 404))).toContain("page_not_found");
  });

  it("refuses ranges that are not two revision ids", async () => {
    await appendOk("Cmp_bad", twoRevisions(1, "a\n", "b\n"));
    for (const range of ["1..2", "1...x", "0...2", "1...2...3"]) {
      const res = await request(`/page/Cmp_bad/compare/${range}`);
      expect(res.status, range).toBe(400);
      expect((await res.json<{ code: string }>()).code, range).toBe("invalid_compare_range");
    }
    const big = await request(`/page/Cmp_bad/compare/1...${"9".repeat(17)}`);
    await expectProblemCode(big, 422, "revision_id_out_of_range");
  });

  it("turns the history's compare form into the compare URL", async () => {
    await appendOk("Cmp_form", twoRevisions(1, "a\n", "b\n"));
    const res = await browse("/page/Cmp_form/compare?from=1&to=2");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/page/Cmp_form/compare/1...2");
    const missing = await browse("/page/Cmp_form/compare?from=1");
    expect(textOf(await htmlOf(missing, 400))).toContain("invalid_revision_id");
  });

  it(`declines revisions over ${LIMITS.browse.compareMaxLines} lines, quickly, and links the raw revisions`, async () => {
    const long = "x\n".repeat(LIMITS.browse.compareMaxLines + 1);
    await appendOk("Cmp_long", twoRevisions(1, "short\n", long));
    const html = await htmlOf(await browse("/page/Cmp_long/compare/1...2"));
    expect(textOf(html)).toContain("Too big to compare here");
    expect(html).toContain("browse.compareMaxLines");
    expect(links(html)).toEqual(expect.arrayContaining(["/page/Cmp_long/1", "/page/Cmp_long/2"]));
  });

  it(`gives up on revisions that differ in more than ${LIMITS.browse.compareMaxEditLength} lines`, async () => {
    const n = LIMITS.browse.compareMaxEditLength / 2 + 1;
    const a = Array.from({ length: n }, (_, i) => `old ${i}`).join("\n") + "\n";
    const b = Array.from({ length: n }, (_, i) => `new ${i}`).join("\n") + "\n";
    await appendOk("Cmp_unrelated", twoRevisions(1, a, b));
    const html = await htmlOf(await browse("/page/Cmp_unrelated/compare/1...2"));
    expect(html).toContain("browse.compareMaxEditLength");
    // Just under the bound, the same kind of pair is compared.
    const m = LIMITS.browse.compareMaxEditLength / 2 - 1;
    await appendOk(
      "Cmp_unrelated_ok",
      twoRevisions(1, a.split("\n").slice(0, m).join("\n") + "\n", b.split("\n").slice(0, m).join("\n") + "\n"),
    );
    expect(textOf(await htmlOf(await browse("/page/Cmp_unrelated_ok/compare/1...2")))).toContain(
      `${m} lines removed, ${m} added`,
    );
  });
});
