/**
 * `palimpsest export` as a user runs it, against real local archives (issue
 * 28 items 1 and 2): the whole archive in each format, restored into a
 * second archive that exports the same bytes; a public export that keeps
 * suppressed content in; an export killed part way that resumes to the
 * bytes an uninterrupted one writes; an export cut off halfway that
 * `palimpsest import` refuses clearly, losing nothing it had stored; and
 * the errors a user can make.
 */
import { execFile } from "node:child_process";
import { readFile, stat, truncate, writeFile, copyFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { NewRevision } from "../../../../src/page/types.ts";
import { oneLineReason, startImportHarness, summaryOf } from "../import/support/import-cli-harness.ts";
import { commandMissing, present } from "../../support/requirements.ts";
import { clientOf, exportSummaryOf, runExport, startExport, twoArchivesForThisFile } from "./support/export-harness.ts";

const SECRET = "the words nobody may read\n";

function history(count: number, firstId: number, text: (i: number) => string, model = "wikitext"): NewRevision[] {
  return Array.from({ length: count }, (_, i) => ({
    id: firstId + i,
    parentId: i === 0 ? null : firstId + i - 1,
    timestamp: new Date(Date.UTC(2021, 5, 1) + i * 3600_000).toISOString().replace(".000Z", "Z"),
    contributor: i % 3 === 0 ? "198.51.100.7" : `Writer ${i % 4}`,
    comment: i % 2 ? `edit ${i} & <more>` : "",
    model: model as NewRevision["model"],
    text: text(i),
    ...(i % 3 === 1 ? { tags: [`batch:${i}`, "team:export"] } : {}),
  }));
}

describe("palimpsest export", () => {
  const { a, b } = twoArchivesForThisFile();
  let wholeXml = "";

  it("writes the whole archive as .xml, .gz, .br and .bz2, and a restore of it exports the same bytes", async () => {
    const client = clientOf(a());
    await client.append(
      "Cli_export_one",
      history(6, 100, (i) => (i === 2 ? SECRET : `one ${i}\r\n& <b>\n`)),
    );
    await client.setSuppressed("Cli_export_one", 102, true, "a test takedown");
    await client.append(
      "Cli_export_two",
      history(3, 200, (i) => `== two ==\n${"x".repeat(50_000 + i)}\n`),
    );
    await client.append(
      "Help:Cli_export_three",
      history(4, 300, (i) => `<!doctype html><p>three ${i} &amp; é</p>\n`, "html"),
    );
    const dir = a().scratch;
    const xml = join(dir, "all.xml");
    const summary = exportSummaryOf(await runExport(a(), xml));
    expect(summary).toMatchObject({ pages: 3, revisions: 13, resumed_pages: 0 });
    const plain = await readFile(xml);
    wholeXml = plain.toString("utf8");
    expect(summary.file_bytes).toBe(plain.byteLength);
    // The backup holds the suppressed content, marked as such; the titles in key order.
    expect(wholeXml.match(/<palimpsest:suppressed /g)).toHaveLength(1);
    expect(wholeXml).toContain(SECRET);
    expect([...wholeXml.matchAll(/<title>(.*)<\/title>/g)].map((m) => m[1])).toEqual([
      "Cli export one",
      "Cli export two",
      "Help:Cli export three",
    ]);
    for (const ext of ["gz", "br", "bz2"] as const) {
      if (ext === "bz2" && !present(commandMissing("bzip2", ["--help"]), "the .bz2 export")) continue;
      const file = join(dir, `all.xml.${ext}`);
      exportSummaryOf(await runExport(a(), file));
      const packed = await readFile(file);
      const unpacked =
        ext === "gz"
          ? gunzipSync(packed)
          : ext === "br"
            ? brotliDecompressSync(packed)
            : (await promisify(execFile)("bzip2", ["-dc", file], { encoding: "buffer", maxBuffer: 1 << 26 })).stdout;
      expect(Buffer.compare(unpacked, plain), `all.xml.${ext} unpacks to all.xml`).toBe(0);
    }
    summaryOf(await b().runImport(join(dir, "all.xml.br")));
    const again = join(b().scratch, "again.xml");
    exportSummaryOf(await runExport(b(), again));
    expect(Buffer.compare(await readFile(again), plain), "the restored archive's export").toBe(0);
    expect((await fetch(`${b().archive.url}/page/Cli_export_one/102`)).status).toBe(410);
  });

  it("without a backup token, writes what anyone may read: a suppressed revision without its content", async () => {
    const file = join(a().scratch, "public.xml");
    exportSummaryOf(await runExport(a(), file, ["--page", "Cli export one"], { token: null }));
    const xml = await readFile(file, "utf8");
    expect(xml).not.toContain(SECRET);
    expect(xml).not.toContain("palimpsest:suppressed");
    expect(xml).toContain(`<text deleted="deleted" />\n      <sha1/>\n`);
  });

  it("resumes an export killed part way, and ends byte-identical to one that never stopped", async () => {
    const client = clientOf(a());
    const keys = Array.from({ length: 40 }, (_, i) => `Resume_${String(i).padStart(2, "0")}`);
    for (const [n, key] of keys.entries())
      await client.append(
        key,
        history(6, 1000 * (n + 1), (i) => `${key} ${i}\n${"lorem ipsum ".repeat(4000)}\n`),
      );
    const pagesFile = join(a().scratch, "resume-pages.txt");
    await writeFile(pagesFile, `${keys.join("\n")}\n`);
    const whole = join(a().scratch, "resume-whole.xml.gz");
    exportSummaryOf(await runExport(a(), whole, ["--pages", pagesFile]));

    const cut = join(a().scratch, "resume-cut.xml.gz");
    const child = startExport(a(), cut, ["--pages", pagesFile]);
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    let killedAt = -1;
    for (let polls = 0; polls < 3000 && killedAt < 0; polls++) {
      const progress = await readFile(`${cut}.progress`, "utf8").then(
        (t) => JSON.parse(t) as { pagesDone: number },
        () => null,
      );
      if (progress && progress.pagesDone >= 3) {
        child.kill("SIGKILL");
        killedAt = progress.pagesDone;
      } else await new Promise((r) => setTimeout(r, 5));
    }
    await exited;
    expect(killedAt, "the export was killed part way").toBeGreaterThanOrEqual(3);
    expect(
      await stat(cut).then(
        () => true,
        () => false,
      ),
      "no file before the export ends",
    ).toBe(false);
    const resumed = exportSummaryOf(await runExport(a(), cut, ["--pages", pagesFile]));
    expect(resumed.resumed_pages).toBeGreaterThanOrEqual(killedAt);
    expect(resumed.pages).toBe(40);
    expect(Buffer.compare(await readFile(cut), await readFile(whole)), "resumed against uninterrupted").toBe(0);
    expect(
      await stat(`${cut}.progress`).then(
        () => true,
        () => false,
      ),
      "work files removed",
    ).toBe(false);
  });

  it("an export cut off halfway is refused by import, clearly, and what it stored stays; the whole one completes it", async () => {
    const c = await startImportHarness();
    try {
      const whole = join(c.scratch, "whole.xml");
      await writeFile(whole, wholeXml);
      const half = join(c.scratch, "half.xml");
      await copyFile(whole, half);
      await truncate(half, Math.floor(Buffer.byteLength(wholeXml) * 0.6));
      const reason = oneLineReason(await c.runImport(half));
      expect(reason).toMatch(/malformed XML|unclosed|UTF-8/i);
      // What was stored reads back as the original archive serves it.
      const stored = await (
        await fetch(`${c.archive.url}/page/Cli_export_one/history?limit=50`)
      ).json<{
        revisions: Array<{ id: number; suppressed: boolean }>;
      }>();
      expect(stored.revisions.length).toBeGreaterThan(0);
      for (const r of stored.revisions) {
        const [mine, theirs] = await Promise.all(
          [c.archive.url, a().archive.url].map((u) => fetch(`${u}/page/Cli_export_one/${r.id}`)),
        );
        expect(mine!.status).toBe(theirs!.status);
        expect(await mine!.text()).toBe(await theirs!.text());
      }
      summaryOf(await c.runImport(whole));
      const again = join(c.scratch, "again.xml");
      exportSummaryOf(await runExport(c, again));
      expect(await readFile(again, "utf8")).toBe(wholeXml);
    } finally {
      await c.stop();
    }
  });

  it("says what is wrong, with the import command's exit codes", async () => {
    const dir = a().scratch;
    const usage = await runExport(a(), join(dir, "out.txt"));
    expect(usage.code).toBe(2);
    expect(oneLineReason(usage)).toContain("must end in .xml, .gz, .br or .bz2");
    const exists = join(dir, "exists.xml");
    await writeFile(exists, "mine");
    const refused = await runExport(a(), exists);
    expect(refused.code).toBe(2);
    expect(oneLineReason(refused)).toContain("exists");
    expect(await readFile(exists, "utf8")).toBe("mine");
    const nobody = await runExport(a(), join(dir, "nobody.xml"), ["--page", "Nobody here"]);
    expect(nobody.code).toBe(1);
    expect(oneLineReason(nobody)).toMatch(/Nobody_here.*404/);
    const stranger = await runExport(a(), join(dir, "stranger.xml"), ["--page", "Cli export one"], {
      token: "not-a-token-of-this-archive-0000000000000",
    });
    expect(stranger.code).toBe(1);
    expect(oneLineReason(stranger)).toContain("401");
  });
});
