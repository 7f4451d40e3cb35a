/**
 * The reduced static dictionary against the outside world: with a table,
 * corpus HTML/CSS/JS and fuzzed inputs decode byte-exactly with Node's zlib
 * and the Debian `brotli` tool; with no table, the patched encoder writes the
 * same bytes as the unpatched build did (hashes recorded from it).
 */
import "../../../src/codec/install-node.ts";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { expect, it } from "vitest";
import { ReducedDictionary, brotliCompress, dictionaryWord, DICTIONARY_WORD_BITS } from "../../../src/codec/index.ts";
import { prng } from "../../workers/codec/support/prng.ts";
import { describeNeeding, firstMissing } from "../support/requirements.ts";
import { CORPUS_DIR, NO_CORPUS, NO_TOOLS, tool, webSample } from "./support/corpus.ts";
import { STOCK_FILES, STOCK_HASHES } from "./support/reduced-dictionary-stock.ts";

const missing = firstMissing(NO_CORPUS, NO_TOOLS);
const ready = missing === null;

const WEB_TRANSFORMS = [0, 1, 2, 6, 9, 4, 19, 20, 21, 22];

function allWordsTable(transforms: readonly number[]): Uint8Array {
  const pairs: number[][] = [];
  for (let length = 4; length <= 24; length++) {
    for (let index = 0; index < 1 << DICTIONARY_WORD_BITS[length]!; index++)
      for (const t of transforms) pairs.push([length, index, t]);
  }
  const bytes = new Uint8Array(8 + 4 * pairs.length);
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode("PSD1"));
  view.setUint32(4, pairs.length, true);
  pairs.forEach(([length, index, t], i) => {
    view.setUint8(8 + 4 * i, length!);
    view.setUint16(9 + 4 * i, index!, true);
    view.setUint8(11 + 4 * i, t!);
  });
  return bytes;
}

/** Each case spawns brotli -d dozens of times; on a loaded 2-core machine that is seconds, not a hang. */
const SLOW = 120_000;

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex").slice(0, 32);

function expectSame(actual: Uint8Array, expected: Uint8Array, what: string): void {
  expect(actual.byteLength, `${what}: length`).toBe(expected.byteLength);
  expect(Buffer.compare(Buffer.from(actual), Buffer.from(expected)), `${what}: bytes`).toBe(0);
}

describeNeeding(missing, "reduced dictionary output decodes with zlib and brotli -d", () => {
  const rd = ready ? ReducedDictionary.prepare(allWordsTable(WEB_TRANSFORMS)) : undefined;

  it("corpus HTML, CSS and JS at q5, q6 and q9", { timeout: SLOW }, async () => {
    for (const file of webSample()) {
      for (const quality of [5, 6, 9]) {
        const packed = brotliCompress(file.bytes, { quality, reducedDictionary: rd });
        expectSame(brotliDecompressSync(packed), file.bytes, `${file.name} q${quality} zlib`);
        expectSame(await tool("brotli", ["-d", "-c"], packed), file.bytes, `${file.name} q${quality} brotli -d`);
      }
    }
  });

  it("fuzzed inputs: empty, 1 byte, random bytes, random dictionary-word mixes, 2 MiB", { timeout: SLOW }, async () => {
    const rand = prng(2024);
    const soup = (words: number) => {
      const parts: Uint8Array[] = [];
      for (let i = 0; i < words; i++) {
        const length = rand.int(4, 24);
        parts.push(dictionaryWord(length, rand.int(0, (1 << DICTIONARY_WORD_BITS[length]!) - 1), rand.int(0, 120)));
        if (rand.next() < 0.2) parts.push(rand.bytes(rand.int(1, 4)));
      }
      return Buffer.concat(parts);
    };
    const inputs: Uint8Array[] = [
      new Uint8Array(0),
      new Uint8Array([0x61]),
      rand.bytes(10_000),
      ...Array.from({ length: 20 }, (_, i) => soup(20 + 150 * i)),
    ];
    inputs.push(Buffer.concat([soup(100_000), rand.bytes(300_000)]));
    for (const [i, input] of inputs.entries()) {
      const quality = 5 + (i % 5);
      const packed = brotliCompress(input, { quality, reducedDictionary: rd });
      expectSame(brotliDecompressSync(packed), input, `input ${i} q${quality} zlib`);
      expectSame(await tool("brotli", ["-d", "-c"], packed), input, `input ${i} q${quality} brotli -d`);
    }
  });
});

describeNeeding(NO_CORPUS, "no table: byte-identical to the unpatched encoder", () => {
  it("9 corpus files x q5-9 x lgwin 16 and 22, and 1.3 MB at q5/7/9 (the H6 hasher)", { timeout: SLOW }, () => {
    let checked = 0;
    for (const path of STOCK_FILES) {
      const bytes = readFileSync(join(CORPUS_DIR, "web", path));
      for (const quality of [5, 6, 7, 8, 9]) {
        for (const lgwin of [22, 16]) {
          expect(sha(brotliCompress(bytes, { quality, lgwin })), `${path} q${quality} w${lgwin}`).toBe(
            STOCK_HASHES[`${path} q${quality} w${lgwin}`],
          );
          checked++;
        }
      }
    }
    const rows = readFileSync(join(CORPUS_DIR, "web/MANIFEST.tsv"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.split("\t")[0]!);
    const big = new Uint8Array(1_300_000);
    let at = 0;
    for (const path of rows) {
      if (at >= big.length) break;
      const b = readFileSync(join(CORPUS_DIR, "web", path));
      big.set(b.subarray(0, Math.min(b.length, big.length - at)), at);
      at += b.length;
    }
    for (const quality of [5, 7, 9]) {
      expect(sha(brotliCompress(big, { quality, lgwin: 22 })), `concat q${quality}`).toBe(
        STOCK_HASHES[`concat1300k q${quality} w22`],
      );
      checked++;
    }
    expect(checked).toBe(93);
  });
});
