/**
 * Export and import speed and peak memory against MediaWiki's own tools, on
 * the same history and machine, so the figures are comparable: `palimpsest import` of a
 * corpus history against `importDump.php` of the same XML into MediaWiki 1.39
 * on SQLite, and `palimpsest export` of it against `dumpBackup.php --full`.
 * Prints one JSON line: each side's seconds, MB/s of XML, revisions/s, peak
 * resident set (the CLI's, the archive's workerd's, PHP's), and the ratios
 * (MediaWiki's time over ours). It asserts only that both sides hold the
 * same revisions: timings are figures, not pass/fail.
 *
 * ecma402-datetimeformat (19.6 MB of XML, 301 revisions) is the history:
 * importDump.php takes minutes on the larger ones. Its revisions are HTML,
 * a content model a stock MediaWiki does not register, so MediaWiki's side
 * loads the same XML with the model and format said as wikitext (the same
 * text bytes; MediaWiki stores them alike).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync } from "node:zlib";
import { expect, it } from "vitest";
import { mediaWikiForThisFile, NO_MEDIAWIKI, peakRssOf } from "../../support/mediawiki.ts";
import { describeNeeding, fileMissing, firstMissing } from "../../support/requirements.ts";
import { importHarnessForThisFile, summaryOf } from "../import/support/import-cli-harness.ts";
import { exportSummaryOf, runExport } from "./support/export-harness.ts";

const HISTORY = fileURLToPath(
  new URL("../../../../../shared/corpus/histories/ecma402-datetimeformat.xml.br", import.meta.url),
);

/** The workerd processes this test process started (the local archive), by walking /proc. */
function workerdPids(): number[] {
  const parentOf = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, close));
      parentOf.set(Number(entry), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      /* gone */
    }
  }
  const descends = (pid: number) => {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) if (p === process.pid) return true;
    return false;
  };
  return [...names].filter(([pid, name]) => name === "workerd" && descends(pid)).map(([pid]) => pid);
}

const mb = (bytes: number) => Math.round((bytes / 1e6) * 10) / 10;
const rate = (amount: number, ms: number) => Math.round((amount / (ms / 1000)) * 10) / 10;
/** One side's run: its time, and its speed in MB of XML and in revisions. */
const speed = (ms: number, xmlBytes: number, revisions: number) => ({
  seconds: ms / 1000,
  mb_per_s: rate(xmlBytes / 1e6, ms),
  revisions_per_s: rate(revisions, ms),
});

describeNeeding(
  firstMissing(NO_MEDIAWIKI, fileMissing(HISTORY, "the shared corpus's ecma402-datetimeformat history")),
  "export and import against dumpBackup.php and importDump.php",
  () => {
    const wiki = mediaWikiForThisFile();
    const h = importHarnessForThisFile();

    it("prints both sides' speed and peak memory on one history", async () => {
      const xml = brotliDecompressSync(readFileSync(HISTORY));
      const plain = join(h.scratch, "history.xml");
      await writeFile(plain, xml);
      const forWiki = join(h.scratch, "history-as-wikitext.xml");
      await writeFile(
        forWiki,
        xml
          .toString("utf8")
          .replaceAll("<model>html</model>", "<model>wikitext</model>")
          .replaceAll("<format>text/html</format>", "<format>text/x-wiki</format>"),
      );
      const revisions = (xml.toString("latin1").match(/<revision>/g) ?? []).length;

      const importResult = await h.runImport(plain, [], { peakRss: true });
      const importRun = summaryOf(importResult);
      expect(importRun.revisions).toBe(revisions);
      const exportFile = join(h.scratch, "palimpsest-export.xml");
      const exported = await runExport(h, exportFile, [], { peakRss: true });
      const exportSummary = exportSummaryOf(exported);
      expect(exportSummary.revisions).toBe(revisions);
      const workerdPeak = Math.max(0, ...workerdPids().map(peakRssOf));

      let importDumpPeak = 0;
      const importDumpStarted = Date.now();
      await wiki.maintenance("importDump", [forWiki], {
        timeoutMs: 1_200_000,
        onPeakRss: (b) => (importDumpPeak = b),
      });
      const importDumpMs = Date.now() - importDumpStarted;
      let dumpPeak = 0;
      const dumpFile = join(h.scratch, "dumpBackup.xml");
      const dumpStarted = Date.now();
      await writeFile(
        dumpFile,
        await wiki.maintenance("dumpBackup", ["--full", "--quiet"], {
          timeoutMs: 1_200_000,
          onPeakRss: (b) => (dumpPeak = b),
        }),
      );
      const dumpMs = Date.now() - dumpStarted;
      const dumped = (readFileSync(dumpFile, "latin1").match(/<revision>/g) ?? []).length;
      // The wiki also holds its Main Page.
      expect(dumped).toBe(revisions + 1);

      const importMs = importRun.seconds * 1000;
      const exportMs = exportSummary.seconds * 1000;
      const figures = {
        history: "ecma402-datetimeformat",
        revisions,
        xml_mb: mb(xml.byteLength),
        palimpsest_import: {
          ...speed(importMs, xml.byteLength, revisions),
          cli_peak_rss_mb: mb(importResult.peakRss ?? 0),
        },
        importDump_php: { ...speed(importDumpMs, xml.byteLength, revisions), peak_rss_mb: mb(importDumpPeak) },
        palimpsest_export: {
          ...speed(exportMs, exportSummary.xml_bytes, revisions),
          cli_peak_rss_mb: mb(exported.peakRss ?? 0),
        },
        dumpBackup_php: { ...speed(dumpMs, statSync(dumpFile).size, dumped), peak_rss_mb: mb(dumpPeak) },
        archive_workerd_peak_rss_mb: mb(workerdPeak),
        ratio_import: Math.round((importDumpMs / importMs) * 100) / 100,
        ratio_export: Math.round((dumpMs / exportMs) * 100) / 100,
      };
      console.log(JSON.stringify(figures));
    }, 1_800_000);
  },
);
