/**
 * The trainer, in process and through the CLI: the same corpus gives the same
 * table bytes twice, the table is canonical PSD1 within its budget, its pairs
 * are ones the corpus used in at least --min-files files; and
 * `dict build --check` fails, naming the files, when what it regenerates
 * differs from what is committed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import "../../../../src/codec/install-node.ts";
import { decodeTable } from "../../../../src/codec/dict/table-format.ts";
import { corpusFiles } from "../../../../src/tools/dict/corpus.ts";
import { trainTable } from "../../../../src/tools/dict/train.ts";
import { palimpsest } from "../../codec/support/corpus.ts";
import { scratchDirForThisFile } from "../../support/scratch.ts";
import { writeFixtureCorpus } from "./support/fixture-corpus.ts";

const scratch = scratchDirForThisFile("dict-train-test-");
const corpus = writeFixtureCorpus(join(scratch, "web"));
// A few transforms keep the candidate table (and the test) small; the committed tables use all 121.
const TRANSFORMS = [0, 1, 2, 6, 9];

describe("dict train", () => {
  it("makes the same table twice from the same corpus, keeping only pairs used in enough files", () => {
    const files = corpusFiles([corpus], { type: "html" });
    expect(files.map((f) => f.key)).toEqual([0, 1, 2, 3].map((n) => `html/fixture/file-${n}.html`));
    const one = trainTable(files, { maxEntries: 40, minFiles: 2, transforms: TRANSFORMS });
    const two = trainTable(files, { maxEntries: 40, minFiles: 2, transforms: TRANSFORMS });
    expect(Buffer.from(two.table).equals(Buffer.from(one.table))).toBe(true);
    const entries = decodeTable(one.table);
    expect(entries.length).toBeGreaterThan(5);
    expect(entries.length).toBeLessThanOrEqual(40);
    expect(one.kept.every((s) => s.files >= 2 && s.gain > 0 && TRANSFORMS.includes(s.transform))).toBe(true);
    // Fewer slots keep a prefix of the same ranking.
    const small = trainTable(files, { maxEntries: 5, minFiles: 2, transforms: TRANSFORMS });
    expect(small.kept).toEqual(one.kept.slice(0, 5));
  });

  it("writes the same bytes from the command line, and says what it kept", { timeout: 60_000 }, async () => {
    const out = join(scratch, "css.psd");
    const cli = await palimpsest([
      "dict",
      "train",
      "--type",
      "css",
      corpus,
      "--out",
      out,
      "--max-entries",
      "30",
      "--transforms",
      TRANSFORMS.join(","),
    ]);
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stderr).toMatch(/wrote .*css\.psd: \d+ of \d+ pairs used/);
    const inProcess = trainTable(corpusFiles([corpus], { type: "css" }), { maxEntries: 30, transforms: TRANSFORMS });
    expect(Buffer.from(readFileSync(out)).equals(Buffer.from(inProcess.table))).toBe(true);
  });

  it("refuses bad usage with exit 2", { timeout: 60_000 }, async () => {
    const bad = await Promise.all([
      palimpsest(["dict", "train", "--type", "svg", corpus, "--out", join(scratch, "x.psd")]),
      palimpsest(["dict", "train", "--type", "html", join(scratch, "nowhere"), "--out", join(scratch, "x.psd")]),
      palimpsest(["dict", "train", "--type", "html", corpus, "--out", join(scratch, "x.psd"), "--transforms", "0,121"]),
      palimpsest([
        "dict",
        "train",
        "--type",
        "html",
        corpus,
        "--out",
        join(scratch, "x.psd"),
        "--max-entries",
        "100000",
      ]),
    ]);
    expect(bad.map((r) => r.status)).toEqual([2, 2, 2, 2]);
    expect(bad[1]!.stderr).toMatch(/cannot list/);
    expect(bad[2]!.stderr).toMatch(/--transforms/);
  });
});

describe("dict build --check", () => {
  it(
    "fails, naming every committed file that differs, when the corpus regenerates other tables",
    { timeout: 120_000 },
    async () => {
      // The fixture corpus trains different tables from the shared corpus's, as a stale commit would differ.
      const check = await palimpsest(["dict", "build", "--check", "--corpus", corpus]);
      expect(check.status).toBe(1);
      expect(check.stderr).toMatch(
        /src\/codec\/dict\/html\.psd, src\/codec\/dict\/css\.psd, src\/codec\/dict\/js\.psd, src\/codec\/dict\/tables\.generated\.ts differ/,
      );
      expect(check.stderr).toMatch(/npm run build:dict/);
    },
  );

  it("points at --corpus when there is no corpus", { timeout: 60_000 }, async () => {
    const check = await palimpsest(["dict", "build", "--check", "--corpus", join(scratch, "nowhere")]);
    expect(check.status).toBe(2);
    expect(check.stderr).toMatch(/web corpus is missing/);
  });
});
