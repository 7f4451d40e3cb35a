/**
 * `palimpsest import` of a whole wiki, several pages at once (--concurrency):
 * the real CLI against a real local Worker. Every page's revisions are stored
 * exactly as the export has them (ids, parents, texts), so pages written side
 * by side never mix; run again, it finds them all stored, a page deleted as
 * MediaWiki deletes included (its writer resumes from what its PageStore
 * holds, which the public history no longer shows); without a terminal the CLI prints progress lines; and an
 * import killed with SIGKILL while pages are in flight, run again, stores the
 * rest, loses nothing and stores nothing twice.
 */
import { describe, expect, it } from "vitest";
import { exportXml, generateHistory, mediaWikiSha1, type GeneratedRevision } from "../../support/mediawiki-export.ts";
import { importHarnessForThisFile, rawBytes, summaryOf, type ImportHarness } from "./support/import-cli-harness.ts";

const h = importHarnessForThisFile();
/** How long one import here may take before it counts as hung: seconds alone, a minute beside a full CI run. */
const SLOW_MACHINE_MS = 150_000;

interface WikiPage {
  title: string;
  revisions: GeneratedRevision[];
}

/** `count` pages, page i with `revisionsOf(i)` revisions, ids from `firstId` + i × 100. */
function wiki(prefix: string, count: number, firstId: number, revisionsOf: (i: number) => number): WikiPage[] {
  return Array.from({ length: count }, (_, i) => ({
    title: `${prefix} ${String(i).padStart(3, "0")}`,
    revisions: generateHistory(revisionsOf(i), { firstId: firstId + i * 100, seed: firstId + i }),
  }));
}

const keyOf = (title: string) => encodeURIComponent(title.replace(/ /g, "_"));

/** The archive's list of pages (`GET /api/pages`, with the operator's token: deleted pages too), by key. */
async function listed(harness: ImportHarness): Promise<Map<string, { revisions: number; deleted: boolean }>> {
  const res = await fetch(`${harness.archive.url}/api/pages?limit=500`, {
    headers: { authorization: `Bearer ${harness.archive.token}` },
  });
  expect(res.status).toBe(200);
  const body = await res.json<{ pages: Array<{ key: string; revisions: number; deleted: boolean }> }>();
  return new Map(body.pages.map((p) => [p.key, { revisions: p.revisions, deleted: p.deleted }]));
}

/** The page's stored history, oldest first, as [id, parent, SHA-1] (the archive computes the SHA-1 from the text it stored). */
async function storedHistory(title: string): Promise<Array<[number, number | null, string]>> {
  return ((await h.history(title)) ?? []).reverse().map((r) => [r.id, r.parentId, r.sha1]);
}

const exported = (revisions: GeneratedRevision[]): Array<[number, number | null, string]> =>
  revisions.map((r) => [r.id, r.parentId, mediaWikiSha1(r.text)]);

const PROGRESS_LINE =
  /^palimpsest: imported (\d+) pages, (\d+) revisions, \d+(\.\d)? rev\/s \((\d+) % of the file read\)$/;

describe("palimpsest import: many pages at once", () => {
  it("stores every page's revisions exactly with --concurrency 4, deletes a backup's deleted page after its revisions, and prints progress lines without a terminal", async () => {
    const pages = wiki("Bulk", 48, 300_000, (i) => 1 + ((i * 7) % 9));
    // Eight revisions: three batches of --batch-revisions 3.
    const deleted = pages[10]!;
    const total = pages.reduce((n, p) => n + p.revisions.length, 0);
    // A backup marks a page deleted as MediaWiki deletes after its revisions.
    const xml = exportXml({ pages });
    const lastOfDeleted = `<id>${deleted.revisions.at(-1)!.id}</id>`;
    const at = xml.indexOf("</revision>", xml.indexOf(lastOfDeleted)) + "</revision>".length;
    const file = await h.writeExport("bulk", `${xml.slice(0, at)}\n    <palimpsest:deleted />${xml.slice(at)}`, "br");

    // No --no-progress, and stderr is a pipe: progress lines, at least the closing one.
    const args = h.importArgs(file, ["--concurrency", "4", "--batch-revisions", "3", "--progress-interval", "1"]);
    const result = await h.runCli(
      args.filter((a) => a !== "--no-progress"),
      { watchdogMs: SLOW_MACHINE_MS },
    );
    const summary = summaryOf(result);
    expect(summary).toMatchObject({
      pages: 48,
      revisions: total,
      created: total,
      already_stored: 0,
      skipped: 0,
      raw_bytes: rawBytes(pages.flatMap((p) => p.revisions)),
      concurrency: 4,
    });
    const lines = result.stderr.trimEnd().split("\n");
    for (const line of lines) expect(line).toMatch(PROGRESS_LINE);
    const last = PROGRESS_LINE.exec(lines.at(-1)!)!;
    expect([Number(last[1]), Number(last[2]), Number(last[4])]).toEqual([48, total, 100]);

    for (const page of pages) {
      if (page === deleted) continue;
      expect(await storedHistory(page.title), page.title).toEqual(exported(page.revisions));
      await h.expectReadsBack(page.title, page.revisions);
    }
    expect((await fetch(`${h.archive.url}/page/${keyOf(deleted.title)}/history`)).status).toBe(410);
    expect((await listed(h)).get(deleted.title.replace(/ /g, "_"))).toEqual({
      revisions: deleted.revisions.length,
      deleted: true,
    });

    // Run again, it finds everything stored: the deleted page too, whose public history is gone (410)
    // but whose PageStore still names its latest revision, where its writer resumes.
    const again = summaryOf(
      await h.runImport(file, ["--concurrency", "4", "--batch-revisions", "3"], { watchdogMs: SLOW_MACHINE_MS }),
    );
    expect(again).toMatchObject({ pages: 48, revisions: total, created: 0, already_stored: total, skipped: 0 });
    expect((await listed(h)).get(deleted.title.replace(/ /g, "_"))).toEqual({
      revisions: deleted.revisions.length,
      deleted: true,
    });
  }, 240_000);

  it("with --concurrency 6, holds at most --batch-bytes of revision text across all pages in flight, and stores every page exactly", async () => {
    // Small pages and long ones (texts grow to about 3 KB): with a batch of up to 8 KiB for each of six pages,
    // the pages in flight together would hold several budgets.
    const pages = wiki("Budget", 36, 500_000, (i) => 1 + ((i * 5) % 30));
    const total = pages.reduce((n, p) => n + p.revisions.length, 0);
    const budget = 8192;
    const file = await h.writeExport("budget", exportXml({ pages }), "br");
    const summary = summaryOf(
      await h.runImport(file, ["--concurrency", "6", "--batch-bytes", String(budget)], { watchdogMs: SLOW_MACHINE_MS }),
    );
    expect(summary).toMatchObject({ pages: 36, revisions: total, created: total, skipped: 0, concurrency: 6 });
    // Measured, and it crossed a single revision's text: the budget was used, and never overrun.
    const largest = Math.max(...pages.flatMap((p) => p.revisions.map((r) => Buffer.byteLength(r.text))));
    expect(summary.peak_held_bytes).toBeGreaterThan(largest);
    expect(summary.peak_held_bytes).toBeLessThanOrEqual(budget);
    for (const page of pages) expect(await storedHistory(page.title), page.title).toEqual(exported(page.revisions));
  }, 240_000);

  it("killed with SIGKILL while pages are in flight, then run again: every page whole, nothing stored twice", async () => {
    const pages = wiki("Restart", 50, 400_000, () => 12);
    const total = 50 * 12;
    const file = await h.writeExport("restart", exportXml({ pages }), "gz");
    const args = h.importArgs(file, ["--concurrency", "6", "--batch-revisions", "2"]);
    const ours = (key: string) => key.startsWith("Restart_");

    // Kill it once some pages are written and at least one is part written: pages are in flight.
    const first = h.startCli(args, { watchdogMs: SLOW_MACHINE_MS });
    for (;;) {
      if (first.exited()) throw new Error(`the import ended before it was killed: ${(await first.result).stderr}`);
      const now = [...(await listed(h))].filter(([key]) => ours(key));
      if (now.length >= 12 && now.some(([, p]) => p.revisions < 12)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    first.kill("SIGKILL");
    expect((await first.result).code).toBeNull();

    // Requests the archive had whole when the CLI died are still committed: wait until nothing changes.
    let before = JSON.stringify([...(await listed(h))]);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const now = JSON.stringify([...(await listed(h))]);
      if (now === before) break;
      before = now;
    }
    const atKill = [...(await listed(h))].filter(([key]) => ours(key));
    expect(atKill.length).toBeLessThan(50);
    expect(atKill.some(([, p]) => p.revisions > 0 && p.revisions < 12)).toBe(true);
    // What each page holds is its first revisions, in order: whole batches of the export.
    let stored = 0;
    for (const page of pages) {
      const history = await storedHistory(page.title);
      expect(history, page.title).toEqual(exported(page.revisions.slice(0, history.length)));
      stored += history.length;
    }
    expect(stored).toBe(atKill.reduce((n, [, p]) => n + p.revisions, 0));

    const again = summaryOf(
      await h.runImport(file, ["--concurrency", "6", "--batch-revisions", "2"], { watchdogMs: SLOW_MACHINE_MS }),
    );
    expect(again).toMatchObject({
      pages: 50,
      revisions: total,
      already_stored: stored,
      created: total - stored,
      skipped: 0,
      concurrency: 6,
    });
    expect(again.already_stored).toBeGreaterThan(0);
    for (const page of pages) expect(await storedHistory(page.title), page.title).toEqual(exported(page.revisions));
  }, 240_000);
});
