/**
 * `palimpsest import` end to end, as a user runs it: the real CLI binary
 * against a real local Worker (wrangler's programmatic API, fresh storage,
 * a random write token). Every test works on its own page, so they run
 * concurrently against one archive.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { decodeUtf8, readMediaWikiExport } from "../../../../src/tools/import/mediawiki-reader.ts";
import { openExport } from "../../../../src/tools/import/open-export.ts";
import {
  exportXml,
  generateHistory,
  mediaWikiSha1,
  type ExportRevisionInput,
  type GeneratedRevision,
} from "../../support/mediawiki-export.ts";
import { freePort } from "../../../../src/tools/local/local-worker.ts";
import { fileMissing, itNeeding } from "../../support/requirements.ts";
import {
  NO_BZIP2,
  freshImport,
  oneLineReason,
  rawBytes,
  importHarnessForThisFile,
  newestFirst,
  summaryOf,
  type Compression,
  type HistoryEntry,
} from "./support/import-cli-harness.ts";

const BIP_0340 = fileURLToPath(new URL("../../../../../shared/corpus/histories/bip-0340.xml.br", import.meta.url));

const h = importHarnessForThisFile();

const runCli = (args: string[]) => h.runCli(args);
const runImport = (file: string, ...extra: string[]) => h.runImport(file, extra);
const writeExport = (name: string, xml: string, compression?: Compression) => h.writeExport(name, xml, compression);
const history = (title: string) => h.history(title);
const readRevision = (title: string, id: number) => h.readRevision(title, id);
const expectReadsBack = (title: string, revisions: Array<{ id: number; text: string; sha1?: string | null }>) =>
  h.expectReadsBack(title, revisions);

describe.concurrent("palimpsest import against a local archive", () => {
  const FORMATS: Compression[] = ["plain", "gz", "br", "bz2"];
  FORMATS.forEach((compression, n) => {
    const resume = compression === "plain"; // resuming does not depend on the compression
    itNeeding(
      compression === "bz2" ? NO_BZIP2 : null,
      `imports a ${compression} export and reads it back byte-exact${resume ? ", then resumes" : ""}`,
      { timeout: 90_000 },
      async () => {
        const title = `Import ${compression}`;
        const revs = generateHistory(30, { firstId: 10_000 * (n + 1), seed: n + 1 });
        const file = await writeExport(
          `import-${compression}`,
          exportXml({ version: "0.11", pages: [{ title, revisions: revs }] }),
          compression,
        );

        const first = summaryOf(await runImport(file));
        expect(first).toMatchObject(freshImport(revs));
        expect(first.stored_bytes).toBeGreaterThan(0);

        const listed = (await history(title))!;
        expect(listed.map((r) => r.id)).toEqual(revs.map((r) => r.id).reverse());
        expect(listed.map((r) => r.parentId)).toEqual(revs.map((r) => r.parentId).reverse());
        expect(listed.map((r) => r.sha1)).toEqual(revs.map((r) => mediaWikiSha1(r.text)).reverse());
        await expectReadsBack(title, revs);
        if (!resume) return;

        const again = summaryOf(await runImport(file));
        expect(again).toMatchObject({
          pages: 1,
          revisions: 30,
          created: 0,
          already_stored: 30,
          skipped: 0,
          raw_bytes: 0,
        });
        expect(again.stored_bytes).toBe(first.stored_bytes);
        expect((await history(title))!).toHaveLength(30);
      },
    );
  });

  it("resumes a partial import, and refuses an export that lacks the archive's latest revision", async () => {
    const title = "Partial resume";
    const revs = generateHistory(30, { firstId: 50_000, seed: 9 });
    const head = await writeExport("partial-head", exportXml({ pages: [{ title, revisions: revs.slice(0, 12) }] }));
    const full = await writeExport("partial-full", exportXml({ pages: [{ title, revisions: revs }] }));
    const older = await writeExport("partial-older", exportXml({ pages: [{ title, revisions: revs.slice(0, 5) }] }));

    expect(summaryOf(await runImport(head))).toMatchObject({ revisions: 12, created: 12, already_stored: 0 });
    expect(summaryOf(await runImport(full))).toMatchObject({
      revisions: 30,
      created: 18,
      already_stored: 12,
      raw_bytes: rawBytes(revs.slice(12)),
    });
    expect((await history(title))!.map((r) => r.id)).toEqual(revs.map((r) => r.id).reverse());

    const refused = oneLineReason(await runImport(older));
    expect(refused).toMatch(/Partial resume.*latest revision 50029 is not in this export/);
  }, 90_000);

  it("imports a multi-page export, and checks where to resume on every page, not just the last", async () => {
    const a = generateHistory(10, { firstId: 55_000, seed: 5 });
    const b = generateHistory(4, { firstId: 56_000, seed: 6 });
    const both = await writeExport(
      "multi-both",
      exportXml({
        pages: [
          { title: "Multi a", revisions: a },
          { title: "multi_b", revisions: b },
        ],
      }),
    );
    expect(summaryOf(await runImport(both))).toMatchObject(freshImport([...a, ...b], 2));
    expect((await history("Multi a"))!.map((r) => r.id)).toEqual(a.map((r) => r.id).reverse());
    expect((await history("Multi b"))!.map((r) => r.id)).toEqual(b.map((r) => r.id).reverse());

    // An export whose first page lacks that page's latest stored revision.
    const stale = await writeExport(
      "multi-stale",
      exportXml({
        pages: [
          { title: "Multi a", revisions: a.slice(0, 5) },
          { title: "Multi b", revisions: b },
        ],
      }),
    );
    expect(oneLineReason(await runImport(stale))).toMatch(
      /page Multi a: the archive's latest revision 55009 is not in this export/,
    );
  }, 90_000);

  /** A 30-revision history whose 15th revision has a timestamp that cannot exist. */
  function withBadRevision(title: string, firstId: number): { xml: string; revs: GeneratedRevision[]; badId: number } {
    const revs = generateHistory(30, { firstId, seed: firstId });
    const badId = revs[14]!.id;
    const inputs: ExportRevisionInput[] = revs.map((r) =>
      r.id === badId ? { ...r, timestamp: "2020-13-01T00:00:00Z" } : r,
    );
    return { xml: exportXml({ pages: [{ title, revisions: inputs }] }), revs, badId };
  }

  it("--on-error=skip imports the rest, counts the bad revision and names it on stderr", async () => {
    const title = "On error skip";
    const { xml, revs, badId } = withBadRevision(title, 60_000);
    const file = await writeExport("on-error-skip", xml);
    const result = await runImport(file, "--on-error=skip", "--batch-revisions", "7");
    const good = revs.filter((r) => r.id !== badId);
    expect(summaryOf(result)).toMatchObject({ ...freshImport(good), skipped: 1 });
    expect(result.stderr.trimEnd().split("\n")).toEqual([
      `palimpsest: skipped page "On error skip" revision ${badId}: bad <timestamp> "2020-13-01T00:00:00Z" (expected YYYY-MM-DDTHH:MM:SSZ)`,
    ]);
    const listed = (await history(title))!;
    expect(listed.map((r) => r.id)).toEqual(good.map((r) => r.id).reverse());
    // The revision after the skipped one now follows the one before it.
    expect(listed.find((r) => r.id === badId + 1)!.parentId).toBe(badId - 1);
    expect((await readRevision(title, badId)).status).toBe(404);
    await expectReadsBack(title, good);
  }, 90_000);

  it("--on-error=stop exits non-zero with a one-line reason and stores nothing after the bad revision", async () => {
    const title = "On error stop";
    const { xml, revs, badId } = withBadRevision(title, 70_000);
    const file = await writeExport("on-error-stop", xml);
    const reason = oneLineReason(await runImport(file, "--on-error=stop", "--batch-revisions", "5"));
    expect(reason).toBe(
      `palimpsest: page "On error stop" revision ${badId}: bad <timestamp> "2020-13-01T00:00:00Z" (expected YYYY-MM-DDTHH:MM:SSZ)`,
    );
    const stored = ((await history(title)) ?? []).map((r) => r.id);
    expect(stored.every((id) => id < badId)).toBe(true);
    // Full batches before the bad revision were committed, intact.
    expect(stored.length).toBeGreaterThanOrEqual(10);
    await expectReadsBack(
      title,
      revs.filter((r) => stored.includes(r.id)),
    );
  }, 90_000);

  it("a revision whose <format> its model does not allow (a css page as text/html) is refused, naming the page and the revision", async () => {
    const title = "Format refused";
    const revs = generateHistory(3, { firstId: 75_000, seed: 75 });
    const inputs: ExportRevisionInput[] = revs.map((r, i) => ({
      ...r,
      model: "css",
      format: i === 1 ? "text/html" : "text/css",
    }));
    const file = await writeExport("format-refused", exportXml({ pages: [{ title, revisions: inputs }] }));
    const result = await runImport(file, "--on-error=skip");
    expect(result.stderr.trimEnd().split("\n")).toEqual([
      `palimpsest: skipped page "Format refused" revision ${revs[1]!.id}: format "text/html" is not allowed for content model css; allowed: text/css`,
    ]);
    expect(((await history(title)) ?? []).map((r) => r.id)).toEqual([revs[2]!.id, revs[0]!.id]);
  }, 90_000);

  it("malformed XML exits non-zero with the line and column", async () => {
    const title = "Malformed";
    const xml = exportXml({ pages: [{ title, revisions: generateHistory(3, { firstId: 80_000 }) }] }).replace(
      "</comment>",
      "</coment>",
    );
    const line = xml.split("\n").findIndex((l) => l.includes("</coment>")) + 1;
    const reason = oneLineReason(await runImport(await writeExport("malformed", xml)));
    expect(reason).toMatch(new RegExp(`^palimpsest: malformed XML at line ${line}, column \\d+: `));
    expect(reason).toMatch(/page "Malformed" revision 80000/);
    expect(await history(title)).toBeNull();
  }, 60_000);

  it("a file that is not valid UTF-8 exits non-zero naming the encoding problem", async () => {
    const xml = exportXml({ pages: [{ title: "Latin one", revisions: [{ id: 81_000, text: "caf\u00e9" }] }] });
    const file = join(h.scratch, "latin1.xml");
    await writeFile(file, Buffer.from(xml, "latin1"));
    expect(oneLineReason(await runImport(file))).toMatch(/not valid UTF-8/);
  }, 60_000);

  it("a wrong token exits non-zero with a clear 401", async () => {
    const file = await writeExport(
      "wrong-token",
      exportXml({ pages: [{ title: "Wrong token", revisions: generateHistory(2, { firstId: 82_000 }) }] }),
    );
    const result = await runCli(["import", file, "--url", h.archive.url, "--token", "not-the-token", "--no-progress"]);
    const reason = oneLineReason(result);
    expect(reason).toMatch(/HTTP 401/);
    expect(reason).toMatch(/not one this archive issued/);
    expect(await history("Wrong token")).toBeNull();
  }, 60_000);

  it("an unreachable --url exits non-zero after retrying", async () => {
    const file = await writeExport(
      "unreachable",
      exportXml({ pages: [{ title: "Unreachable", revisions: generateHistory(2, { firstId: 83_000 }) }] }),
    );
    const closed = `http://127.0.0.1:${await freePort()}`;
    const result = await runCli(["import", file, "--url", closed, "--token", h.archive.token, "--no-progress"]);
    expect(oneLineReason(result)).toMatch(
      new RegExp(`cannot reach the archive at ${closed.replace(/\./g, "\\.")} after 6 attempts`),
    );
    // Six attempts with jittered exponential backoff from 250 ms: about 4–12 s of waiting.
    expect(result.ms).toBeGreaterThan(3_500);
    expect(result.ms).toBeLessThan(45_000);
  }, 90_000);

  describe("duplicate revision ids (caught by the write API, not the reader)", () => {
    function duplicateExport(title: string, firstId: number): { xml: string; revs: GeneratedRevision[] } {
      const revs = generateHistory(5, { firstId, seed: 3 });
      // The page's 3rd revision id appears again, with different text, as its 4th.
      const inputs = [...revs.slice(0, 3), { ...revs[3]!, id: revs[2]!.id }, revs[4]!];
      return { xml: exportXml({ pages: [{ title, revisions: inputs }] }), revs };
    }

    it("by default (--on-error=stop) names the page, the revision and the problem", async () => {
      const { xml, revs } = duplicateExport("Duplicate stop", 84_000);
      const reason = oneLineReason(await runImport(await writeExport("duplicate-stop", xml)));
      expect(reason).toMatch(
        new RegExp(`Duplicate_stop: HTTP 422 revision ${revs[2]!.id} appears twice in this request`),
      );
      expect(await history("Duplicate stop")).toBeNull(); // the batch is all or none
    }, 60_000);

    it("--on-error=stop across batches: the id reused with different content is a 409", async () => {
      const { xml, revs } = duplicateExport("Duplicate batches", 85_000);
      const reason = oneLineReason(
        await runImport(await writeExport("duplicate-batches", xml), "--batch-revisions", "1"),
      );
      expect(reason).toMatch(
        new RegExp(`Duplicate_batches: HTTP 409 revision ${revs[2]!.id} already exists with different content`),
      );
      expect(await h.historyIds("Duplicate batches")).toEqual(newestFirst(revs.slice(0, 3)));
    }, 60_000);

    it("--on-error=skip keeps the first revision with that id and skips the later one", async () => {
      const title = "Duplicate skip";
      const { xml, revs } = duplicateExport(title, 86_000);
      const result = await runImport(await writeExport("duplicate-skip", xml), "--on-error=skip");
      const kept = [revs[0]!, revs[1]!, revs[2]!, revs[4]!];
      expect(summaryOf(result)).toMatchObject({ ...freshImport(kept), skipped: 1 });
      expect(result.stderr).toMatch(
        new RegExp(`skipped page "Duplicate skip" revision ${revs[2]!.id}: .*appears twice`),
      );
      const listed = (await history(title))!;
      expect(listed.map((r) => r.id)).toEqual(kept.map((r) => r.id).reverse());
      expect(listed.map((r) => r.parentId)).toEqual([revs[2]!.id, revs[1]!.id, revs[0]!.id, null]);
      await expectReadsBack(title, kept);
    }, 60_000);
  });

  itNeeding(
    fileMissing(BIP_0340, "the shared bip-0340 history"),
    "imports the shared bip-0340 history: 198 revisions, byte-exact, paged history",
    { timeout: 300_000 },
    async () => {
      const exported: Array<{ id: number; text: string; sha1: string | null }> = [];
      for await (const item of readMediaWikiExport(decodeUtf8(await openExport(BIP_0340)))) {
        if (item.kind === "revision")
          exported.push({ id: item.revision.id, text: item.revision.text, sha1: item.revision.sha1 });
      }
      expect(exported).toHaveLength(198);

      const summary = summaryOf(await runImport(BIP_0340));
      expect(summary).toMatchObject(freshImport(exported));
      expect(summary.stored_bytes).toBeLessThan(summary.raw_bytes / 10);

      // Page through the history, newest first, following links.older to the end.
      const ids: number[] = [];
      let url: string | null = `${h.archive.url}/page/BIP_0340/history?limit=50`;
      let pages = 0;
      while (url !== null) {
        const res: Response = await fetch(url);
        expect(res.status).toBe(200);
        const page = await res.json<{
          page: string;
          total: number;
          revisions: HistoryEntry[];
          links: { older: string | null; newer: string | null };
        }>();
        expect(page.page).toBe("BIP 0340");
        expect(page.total).toBe(198);
        expect(page.revisions.length).toBeLessThanOrEqual(50);
        if (pages > 0) expect(page.links.newer).not.toBeNull();
        ids.push(...page.revisions.map((r) => r.id));
        url = page.links.older;
        pages++;
        expect(pages).toBeLessThanOrEqual(5);
      }
      expect(pages).toBe(4);
      expect(ids).toHaveLength(198);
      expect(new Set(ids).size).toBe(198);
      expect(ids).toEqual(exported.map((r) => r.id).sort((a, b) => b - a));

      await expectReadsBack("BIP 0340", exported);
      // The title with a space redirects to the canonical underscore form.
      const redirect = await fetch(`${h.archive.url}/page/BIP%200340/${exported[0]!.id}`, { redirect: "manual" });
      expect(redirect.status).toBe(301);
      expect(redirect.headers.get("location")).toBe(`${h.archive.url}/page/BIP_0340/${exported[0]!.id}`);
    },
  );
});
