/**
 * Palimpsest → MediaWiki against a real wiki: pages in a
 * local archive (a real corpus history, and a page written through the write
 * API with a Unicode title, an IP contributor and a suppressed revision) go
 * out with `palimpsest export`, MediaWiki 1.39's own `importDump.php` loads
 * the file into a fresh wiki (test/node/support/mediawiki.ts), and every
 * revision the wiki then holds is compared with the archive's: text, SHA-1,
 * timestamp, contributor, comment and parent. The same pages give the speed
 * figures of both sides: `palimpsest import` against `importDump.php`,
 * `palimpsest export` against `dumpBackup.php --full`.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { ArchiveClient } from "../../../../src/tools/local/archive-client.ts";
import { mediaWikiForThisFile, NO_MEDIAWIKI, type WikiRevision } from "../../support/mediawiki.ts";
import { mediaWikiSha1 } from "../../support/mediawiki-export.ts";
import { describeNeeding, fileMissing, firstMissing } from "../../support/requirements.ts";
import { importHarnessForThisFile, summaryOf } from "../import/support/import-cli-harness.ts";
import { exportSummaryOf, runExport } from "./support/export-harness.ts";

const BIP_0340 = fileURLToPath(new URL("../../../../../shared/corpus/histories/bip-0340.xml.br", import.meta.url));
const ODD = "Ünïcode café/東京 — export";

const mbps = (bytes: number, ms: number) => (bytes / 2 ** 20 / (ms / 1000)).toFixed(1);

describeNeeding(
  firstMissing(NO_MEDIAWIKI, fileMissing(BIP_0340, "the shared corpus's bip-0340 history")),
  "MediaWiki's importDump.php loads what palimpsest export writes",
  () => {
    const wiki = mediaWikiForThisFile();
    const h = importHarnessForThisFile();

    it("every revision's text, sha1, timestamp, contributor, comment and parent survive the trip", async () => {
      const imported = await h.runImport(BIP_0340);
      const importSummary = summaryOf(imported);
      const client = new ArchiveClient({ url: h.archive.url, token: h.archive.token });
      const key = ODD.replace(/ /g, "_");
      await client.append(key, [
        {
          id: 9_000_001,
          parentId: null,
          timestamp: "2020-01-02T03:04:05Z",
          contributor: "Ünïcode Person",
          comment: "création",
          model: "wikitext",
          text: "first ü 東京",
        },
        {
          id: 9_000_002,
          parentId: 9_000_001,
          timestamp: "2020-01-03T03:04:05Z",
          contributor: "192.0.2.7",
          comment: "",
          model: "wikitext",
          text: "by an IP <b>&amp;</b>",
        },
        {
          id: 9_000_003,
          parentId: 9_000_002,
          timestamp: "2020-01-04T03:04:05Z",
          contributor: "Ünïcode Person",
          comment: "to be hidden",
          model: "wikitext",
          text: "secret",
        },
        {
          id: 9_000_004,
          parentId: 9_000_003,
          timestamp: "2020-01-05T03:04:05Z",
          contributor: "Ünïcode Person",
          comment: "after",
          model: "wikitext",
          text: "",
        },
        {
          id: 9_000_005,
          parentId: 9_000_004,
          timestamp: "2020-01-06T03:04:05Z",
          contributor: "Ünïcode Person",
          comment: "last",
          model: "wikitext",
          text: "last one",
        },
      ]);
      await client.setSuppressed(key, 9_000_003, true, "a test takedown");

      const file = join(h.scratch, "palimpsest-export.xml");
      const exported = await runExport(h, file, [], { token: null }); // what anyone may read: the suppressed one hidden
      const exportSummary = exportSummaryOf(exported);
      const xmlBytes = statSync(file).size;

      const importStarted = Date.now();
      const report = await wiki.maintenance("importDump", [file]);
      const importDumpMs = Date.now() - importStarted;
      expect(report.toString("utf8")).toContain("Done!");

      const admin = await wiki.admin();
      for (const title of ["BIP 0340", ODD]) {
        const fromWiki = await admin.revisions(title);
        const archived = (await h.history(title))!.reverse();
        expect(fromWiki).toHaveLength(archived.length);
        for (const [i, rev] of archived.entries()) {
          const w: WikiRevision = fromWiki[i]!;
          const where = `${title} revision ${rev.id} (the wiki's ${w.revid})`;
          expect(w.timestamp, where).toBe(rev.timestamp);
          expect(w.comment, where).toBe(rev.comment);
          expect([rev.contributor, `imported>${rev.contributor}`], where).toContain(w.user);
          expect(w.parentid, where).toBe(i === 0 ? 0 : fromWiki[i - 1]!.revid);
          if (rev.suppressed) {
            // The public export writes it as MediaWiki does (<text deleted="deleted"/>, <sha1/>), and importDump.php
            // 1.39 stores such a revision as a visible empty one: MediaWiki's importer carries no revision deletion.
            expect(w.text, where).toBe("");
            expect(w.texthidden, where).toBe(false);
            continue;
          }
          expect(w.sha1, where).toBe(rev.sha1);
          const text = await (await h.readRevision(title, rev.id)).text();
          expect(w.text, where).toBe(text);
          expect(mediaWikiSha1(w.text!)).toBe(rev.sha1);
        }
      }

      const dump = join(h.scratch, "dumpBackup.xml");
      const dumpStarted = Date.now();
      await wiki.dump(dump);
      const dumpMs = Date.now() - dumpStarted;
      const revisions = exportSummary.revisions;
      console.log(
        [
          `same ${revisions} revisions, ${(xmlBytes / 2 ** 20).toFixed(1)} MiB of XML:`,
          `palimpsest import ${imported.ms} ms (${importSummary.revisions} revisions of bip-0340, ${mbps(importSummary.raw_bytes, imported.ms)} MiB/s of text)`,
          `importDump.php ${importDumpMs} ms (${mbps(xmlBytes, importDumpMs)} MiB/s, ${Math.round(revisions / (importDumpMs / 1000))} rev/s)`,
          `palimpsest export ${exported.ms} ms (${mbps(xmlBytes, exported.ms)} MiB/s, ${Math.round(revisions / (exported.ms / 1000))} rev/s)`,
          `dumpBackup.php --full ${dumpMs} ms (${mbps(statSync(dump).size, dumpMs)} MiB/s)`,
        ].join("\n  "),
      );
    }, 600_000);
  },
);
