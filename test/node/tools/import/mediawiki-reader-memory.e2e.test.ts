/**
 * Memory bound on a large export: streams the shared w3c-aria history
 * (622 MB of XML, 877 revisions, brotli-compressed) through the same
 * pipeline the import uses (openExport → decodeUtf8 → readMediaWikiExport)
 * and checks the process's resident set stays small. Needs the shared
 * corpus (test/node/support/requirements.ts: fails under CI without it).
 */
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { decodeUtf8, readMediaWikiExport } from "../../../../src/tools/import/mediawiki-reader.ts";
import { openExport } from "../../../../src/tools/import/open-export.ts";
import { describeNeeding, fileMissing } from "../../support/requirements.ts";

const ARIA = fileURLToPath(new URL("../../../../../shared/corpus/histories/w3c-aria.xml.br", import.meta.url));
const RSS_LIMIT = 300 * 1024 * 1024;

describeNeeding(fileMissing(ARIA, "the shared w3c-aria history"), "reader memory on a 622 MB export", () => {
  it("reads all 877 revisions of w3c-aria with RSS under 300 MB", async () => {
    let compressed = 0;
    const bytes = await openExport(ARIA, (n) => (compressed += n));
    let revisions = 0;
    let problems = 0;
    let textChars = 0;
    let peakRss = process.memoryUsage.rss();
    const sample = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
    const ids = new Set<number>();
    try {
      for await (const item of readMediaWikiExport(decodeUtf8(bytes))) {
        if (item.kind === "problem") {
          problems++;
          continue;
        }
        if (item.kind === "deleted") continue;
        revisions++;
        ids.add(item.revision.id);
        textChars += item.revision.text.length;
        peakRss = Math.max(peakRss, process.memoryUsage.rss());
      }
    } finally {
      clearInterval(sample);
    }
    expect(problems).toBe(0);
    expect(revisions).toBe(877);
    expect(ids.size).toBe(877);
    expect(textChars).toBeGreaterThan(500_000_000);
    expect(compressed).toBeLessThan(1_000_000); // the whole file was read compressed
    expect(peakRss, `peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`).toBeLessThan(RSS_LIMIT);
  }, 180_000);
});
