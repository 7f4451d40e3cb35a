/**
 * Keeps the golden vectors honest: the hex committed in
 * test/fixtures/codec/golden-vectors.ts must be exactly what the reference
 * tools write today, and the hand-written brotli streams must decode the same
 * with `brotli -d`, Node's zlib and ours. The workerd tests trust both files.
 */
import "../../../src/codec/install-node.ts";
import { readFileSync } from "node:fs";
import { brotliCompressSync, brotliDecompressSync, constants as z } from "node:zlib";
import { describe, expect, it } from "vitest";
import { brotliCompress, brotliDecompress } from "../../../src/codec/index.ts";
import { GOLDEN_VECTORS } from "../../fixtures/codec/golden-vectors.ts";
import { BROTLI_HANDCRAFTED } from "../../fixtures/codec/handcrafted-vectors.ts";
import {
  GOLDEN_RECIPES,
  renderGoldenVectors,
  runRecipe,
  toolVersions,
} from "../../fixtures/codec/make-golden-vectors.ts";
import { describeNeeding, firstMissing, present } from "../support/requirements.ts";
import { NO_TOOLS, tool } from "./support/corpus.ts";

const committed = readFileSync(new URL("../../fixtures/codec/golden-vectors.ts", import.meta.url), "utf8");
const committedTools = /^\/\/ Tools: (.*)\.$/m.exec(committed)?.[1];
// Debian 12's brotli, lz4 and gzip made the vectors; other versions may write other (valid) bytes.
const notSameTools = () => {
  const installed = toolVersions();
  return installed === committedTools
    ? null
    : `installed tools (${installed}) differ from the ones that made the vectors (${committedTools})`;
};

describeNeeding(
  firstMissing(NO_TOOLS, NO_TOOLS === null && notSameTools()),
  "golden vectors match the reference tools",
  () => {
    it("has one committed vector per recipe", () => {
      expect(GOLDEN_VECTORS.map((v) => v.name)).toEqual(GOLDEN_RECIPES.map((r) => r.name));
    });

    for (const recipe of GOLDEN_RECIPES) {
      it(`\`${[recipe.tool, ...recipe.args].join(" ")}\` still writes the committed bytes (${recipe.name})`, () => {
        expect(runRecipe(recipe).toString("hex")).toBe(GOLDEN_VECTORS.find((v) => v.name === recipe.name)!.hex);
      });
    }

    it("regenerates golden-vectors.ts byte for byte", () => {
      expect(renderGoldenVectors()).toBe(committed);
    });
  },
);

describe("hand-written brotli streams", () => {
  for (const v of BROTLI_HANDCRAFTED) {
    it(`decode to the same text with Node's zlib, ours and \`brotli -d\`: ${v.name}`, async () => {
      const stream = Buffer.from(v.hex, "hex");
      expect(brotliDecompressSync(stream).toString("utf8")).toBe(v.text);
      expect(Buffer.from(brotliDecompress(stream)).toString("utf8")).toBe(v.text);
      if (present(NO_TOOLS, `\`brotli -d\` on ${v.name}`))
        expect((await tool("brotli", ["-d", "-c"], stream)).toString("utf8")).toBe(v.text);
    });
  }
});

describe("small-input encoder vectors against Node's zlib (brotli 1.1.0)", () => {
  const inputs = ["", "a", "hello, hello, hello", "<p>hello</p>".repeat(40), "\u00e9\u00e8\u65e5\u672c".repeat(25)];
  for (const quality of [0, 1, 5, 9, 11]) {
    it(`encodes fixed inputs at quality ${quality} to exactly Node's bytes`, () => {
      for (const text of inputs) {
        const input = Buffer.from(text, "utf8");
        const params = {
          [z.BROTLI_PARAM_QUALITY]: quality,
          [z.BROTLI_PARAM_LGWIN]: 22,
          [z.BROTLI_PARAM_SIZE_HINT]: input.byteLength,
        };
        expect(Buffer.from(brotliCompress(input, { quality, lgwin: 22 })).toString("hex"), JSON.stringify(text)).toBe(
          brotliCompressSync(input, { params }).toString("hex"),
        );
      }
    });
  }

  it('writes q11 of "hello, hello, hello" as these 22 bytes', () => {
    expect(
      Buffer.from(brotliCompress(Buffer.from("hello, hello, hello"), { quality: 11, lgwin: 22 })).toString("hex"),
    ).toBe("1b1200f88d946ede44095286966c2c6f114f24d07100");
  });
});
