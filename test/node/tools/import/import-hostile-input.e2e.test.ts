/**
 * `palimpsest import` on input meant to hurt it, as a user runs it (the real
 * CLI against a real local Worker): a few hundred KB of gzip, or bytes of
 * bzip2, that decode to one node of hundreds of MB (CDATA, a comment,
 * attribute values) must not take the process past 256 MB, and must end in a
 * clear per-revision error (or a skip); a truncated .gz, .br or .bz2 ends in
 * one line naming the file, how far it got and what was imported, and
 * importing the complete file afterwards carries on from there.
 */
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../../src/limits.ts";
import { exportXml, generateHistory } from "../../support/mediawiki-export.ts";
import { itNeeding } from "../../support/requirements.ts";
import { NO_BZIP2, oneLineReason, importHarnessForThisFile, summaryOf } from "./support/import-cli-harness.ts";

const RSS_LIMIT = 256 * 1024 * 1024;
const HOSTILE_MB = 300;

const h = importHarnessForThisFile();

/**
 * A gzip export whose page has three revisions, the second holding `open`,
 * then HOSTILE_MB MiB of "a", then `close`. Made of concatenated gzip
 * members (which gunzip reads as one stream), the MiB of "a" compressed once:
 * about 1 KB per MiB, so the file takes no time to make.
 */
async function hostileExport(
  name: string,
  title: string,
  firstId: number,
  open: string,
  close: string,
): Promise<string> {
  const revisions = [
    { id: firstId, text: "first" },
    { id: firstId + 1, parentId: firstId, text: "@@HOSTILE@@", bytes: false, sha1: false },
    { id: firstId + 2, parentId: firstId + 1, text: "third" },
  ];
  const [head, tail] = exportXml({ pages: [{ title, revisions }] }).split("@@HOSTILE@@") as [string, string];
  // The node replaces <text>…</text>'s content, or the whole element.
  const [before, after] = open.startsWith("<text")
    ? [head.replace(/<text[^>]*>$/, ""), tail.replace(/^<\/text>/, "")]
    : [head, tail];
  const mib = gzipSync(Buffer.alloc(1 << 20, "a"), { level: 9 });
  const file = join(h.scratch, `${name}.xml.gz`);
  await writeFile(
    file,
    Buffer.concat([gzipSync(before + open), ...Array<Buffer>(HOSTILE_MB).fill(mib), gzipSync(close + after)]),
  );
  return file;
}

const LIMIT = LIMITS.page.maxRevisionBytes;
const HOSTILE = [
  {
    node: "CDATA section",
    open: "<text><![CDATA[",
    close: "]]></text>",
    reason: `text exceeds page.maxRevisionBytes (${LIMIT} bytes)`,
  },
  {
    node: "comment",
    open: "<!--",
    close: "-->",
    reason: `a comment is longer than page.maxRevisionBytes (${LIMIT} bytes)`,
  },
  {
    node: "attribute value",
    open: '<text bytes="',
    close: '">x</text>',
    reason: "the attribute values of <text> are longer than 65536 characters",
  },
] as const;

describe.concurrent("palimpsest import: one huge node in a small gzip", () => {
  HOSTILE.forEach(({ node, open, close, reason }, n) => {
    it(`a ${HOSTILE_MB} MB ${node}: --on-error=stop names the revision and the limit, under 256 MB of RSS`, async () => {
      const title = `Hostile ${node} stop`;
      const firstId = 10_000 * (n + 1);
      const file = await hostileExport(`hostile-${n}-stop`, title, firstId, open, close);
      const result = await h.runImport(file, ["--on-error=stop"], { peakRss: true });
      expect(oneLineReason(result)).toBe(`palimpsest: page "${title}" revision ${firstId + 1}: ${reason}`);
      expect(result.peakRss!, `peak RSS ${(result.peakRss! / 2 ** 20).toFixed(0)} MiB`).toBeLessThan(RSS_LIMIT);
      expect(((await h.history(title)) ?? []).every((r) => r.id < firstId + 1)).toBe(true);
    }, 60_000);
  });

  it(`a ${HOSTILE_MB} MB CDATA section: --on-error=skip skips that revision and imports the others, under 256 MB of RSS`, async () => {
    const title = "Hostile CDATA skip";
    const { open, close, reason } = HOSTILE[0];
    const file = await hostileExport("hostile-skip", title, 40_000, open, close);
    const result = await h.runImport(file, ["--on-error=skip"], { peakRss: true });
    expect(summaryOf(result)).toMatchObject({ revisions: 2, created: 2, skipped: 1 });
    expect(result.stderr.trimEnd().split("\n")).toEqual([
      `palimpsest: skipped page "${title}" revision 40001: ${reason}`,
    ]);
    expect(result.peakRss!, `peak RSS ${(result.peakRss! / 2 ** 20).toFixed(0)} MiB`).toBeLessThan(RSS_LIMIT);
    expect((await h.history(title))!.map((r) => [r.id, r.parentId])).toEqual([
      [40_002, 40_000],
      [40_000, null],
    ]);
  }, 60_000);
});

describe.concurrent("palimpsest import: one huge node in a small bzip2", () => {
  /** bzip2 streams concatenated (bunzip2 reads them as one), 40 MiB of "a" made once: a few hundred bytes per 40 MiB. */
  const bzip2 = (input: string | Buffer) => {
    const out = spawnSync("bzip2", ["-9", "-c"], { input, maxBuffer: 1 << 24 });
    if (out.status !== 0) throw new Error(`bzip2: ${out.stderr}`);
    return out.stdout;
  };

  itNeeding(
    NO_BZIP2,
    `a ${HOSTILE_MB} MB CDATA section in 1 KB of bzip2 (blocks of 45 MB): --on-error=stop names the revision and the limit, under 256 MB of RSS`,
    { timeout: 60_000 },
    async () => {
      const title = "Hostile bzip2";
      const revisions = [
        { id: 50_000, text: "first" },
        { id: 50_001, parentId: 50_000, text: "@@HOSTILE@@", bytes: false, sha1: false },
      ];
      const [head, tail] = exportXml({ pages: [{ title, revisions }] }).split("@@HOSTILE@@") as [string, string];
      const a40 = bzip2(Buffer.alloc(40 << 20, "a"));
      const file = join(h.scratch, "hostile.xml.bz2");
      const parts = [
        bzip2(`${head.replace(/<text[^>]*>$/, "")}<text><![CDATA[`),
        ...Array<Buffer>(Math.ceil(HOSTILE_MB / 40)).fill(a40),
        bzip2(`]]></text>${tail.replace(/^<\/text>/, "")}`),
      ];
      await writeFile(file, Buffer.concat(parts));
      const result = await h.runImport(file, ["--on-error=stop"], { peakRss: true });
      expect(oneLineReason(result)).toBe(
        `palimpsest: page "${title}" revision 50001: text exceeds page.maxRevisionBytes (${LIMIT} bytes)`,
      );
      expect(result.peakRss!, `peak RSS ${(result.peakRss! / 2 ** 20).toFixed(0)} MiB`).toBeLessThan(RSS_LIMIT);
    },
  );
});

describe.concurrent("palimpsest import: a truncated compressed export", () => {
  const FORMATS = [
    { compression: "gz", name: "gzip" },
    { compression: "br", name: "brotli" },
    { compression: "bz2", name: "bzip2" },
  ] as const;
  FORMATS.forEach(({ compression, name }, n) => {
    itNeeding(
      compression === "bz2" ? NO_BZIP2 : null,
      `a .${compression} cut in half: one line naming the file, the offset and the revisions imported; then the complete file carries on`,
      { timeout: 90_000 },
      async () => {
        const title = `Truncated ${compression}`;
        // About 3 MB of XML: several bzip2 blocks, so the first half decodes to whole revisions.
        const revs = generateHistory(250, { firstId: 100_000 * (n + 1), seed: n + 7 });
        const full = await h.writeExport(
          `truncated-${compression}`,
          exportXml({ pages: [{ title, revisions: revs }] }),
          compression,
        );
        const bytes = await readFile(full);
        const cut = join(h.scratch, `cut-${compression}.xml.${compression}`);
        await writeFile(cut, bytes.subarray(0, Math.floor(bytes.byteLength / 2)));

        const failed = await h.runImport(cut, ["--batch-revisions", "20"]);
        expect(failed.code).toBe(1);
        const line = oneLineReason(failed);
        const m = new RegExp(
          `^palimpsest: ${cut.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: the ${name} data is truncated or corrupt \\(.+\\) at byte (\\d+) of the file; (\\d+) revisions imported so far`,
        ).exec(line);
        expect(m, line).not.toBeNull();
        const offset = Number(m![1]);
        const imported = Number(m![2]);
        expect(offset).toBeGreaterThan(0);
        expect(offset).toBeLessThanOrEqual(bytes.byteLength / 2);
        const stored = (await h.history(title)) ?? [];
        expect(imported).toBeGreaterThan(0);
        expect(stored).toHaveLength(imported);

        const resumed = summaryOf(await h.runImport(full));
        expect(resumed).toMatchObject({
          pages: 1,
          revisions: revs.length,
          already_stored: imported,
          created: revs.length - imported,
          skipped: 0,
        });
        expect((await h.history(title))!.map((r) => r.id)).toEqual(revs.map((r) => r.id).reverse());
      },
    );
  });
});
