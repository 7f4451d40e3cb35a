/**
 * The trainer, in process: the same corpus gives the same table bytes twice,
 * the table is canonical PSD1 within its budget, its pairs are ones the
 * corpus used in at least --min-files files. Through the CLI:
 * train-cli.e2e.test.ts.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import "../../../../src/codec/install-node.ts";
import { decodeTable } from "../../../../src/codec/dict/table-format.ts";
import { corpusFiles } from "../../../../src/tools/dict/corpus.ts";
import { trainTable } from "../../../../src/tools/dict/train.ts";
import { scratchDirForThisFile } from "../../support/scratch.ts";
import { TRANSFORMS, writeFixtureCorpus } from "./support/fixture-corpus.ts";

const scratch = scratchDirForThisFile("dict-train-test-");
let corpus = "";
// Written once the tests run, never while they are collected.
beforeAll(() => {
  corpus = writeFixtureCorpus(join(scratch, "web"));
});

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
});
