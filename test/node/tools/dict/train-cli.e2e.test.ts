/**
 * The trainer through the CLI, as a developer runs it: `dict train` writes
 * the bytes the trainer makes in process and says what it kept, refuses bad
 * usage with exit 2; and `dict build --check` fails, naming the files, when
 * what it regenerates differs from what is committed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import "../../../../src/codec/install-node.ts";
import { corpusFiles } from "../../../../src/tools/dict/corpus.ts";
import { trainTable } from "../../../../src/tools/dict/train.ts";
import { palimpsest } from "../../codec/support/corpus.ts";
import { scratchDirForThisFile } from "../../support/scratch.ts";
import { TRANSFORMS, writeFixtureCorpus } from "./support/fixture-corpus.ts";

const scratch = scratchDirForThisFile("dict-train-cli-test-");
let corpus = "";
// Written once the tests run, never while they are collected.
beforeAll(() => {
  corpus = writeFixtureCorpus(join(scratch, "web"));
});

describe("dict train", () => {
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
    expect(bad[1].stderr).toMatch(/cannot list/);
    expect(bad[2].stderr).toMatch(/--transforms/);
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
