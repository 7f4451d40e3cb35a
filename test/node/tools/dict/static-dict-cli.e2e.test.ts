/**
 * `palimpsest codec compress --static-dict html|css|js`: the output is
 * standard brotli (Node's zlib and Debian's `brotli -d` give back the input
 * byte for byte), no bigger than stock q5 on real web files, and the flag's
 * misuse gets a usage error. Also: the committed tables are well-formed, the
 * generated module holds exactly the committed .psd bytes, and each is far
 * below staticDict.maxTableEntries; and seeded fuzz made of each table's own
 * strings (so the encoder takes its references) round-trips at q5-q9.
 */
import { readFileSync } from "node:fs";
import { brotliDecompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import "../../../../src/codec/install-node.ts";
import { brotliCompress, dictionaryWord } from "../../../../src/codec/index.ts";
import { decodeTable } from "../../../../src/codec/dict/table-format.ts";
import { reducedDictionary, STATIC_DICT_TYPES, staticDictTable } from "../../../../src/codec/dict/static-dict.ts";
import { mulberry32 } from "../../../../src/lib/mulberry32.ts";
import { typeOfPath } from "../../../../src/tools/dict/corpus.ts";
import { LIMITS } from "../../../../src/limits.ts";
import { NO_CORPUS, NO_TOOLS, palimpsest, tool, webSample } from "../../codec/support/corpus.ts";
import { describeNeeding, firstMissing } from "../../support/requirements.ts";

describe("the committed tables", () => {
  for (const type of STATIC_DICT_TYPES) {
    it(`${type}: the generated module holds exactly ${type}.psd, a canonical table within staticDict.maxTableEntries`, () => {
      const psd = readFileSync(new URL(`../../../../src/codec/dict/${type}.psd`, import.meta.url));
      expect(Buffer.from(staticDictTable(type)).equals(psd)).toBe(true);
      const entries = decodeTable(psd);
      expect(entries.length).toBeGreaterThan(0);
      expect(entries.length).toBeLessThanOrEqual(LIMITS.staticDict.maxTableEntries);
    });
  }
});

describe("fuzzed inputs with the committed tables", () => {
  for (const type of STATIC_DICT_TYPES) {
    it(`${type}: table strings, random bytes and markup round-trip through Node's zlib at q5-q9`, () => {
      const strings = decodeTable(staticDictTable(type)).map((e) => dictionaryWord(e.length, e.index, e.transform));
      const rand = mulberry32(0x5eed + type.length);
      let usedTable = 0;
      for (let n = 0; n < 12; n++) {
        const parts: Uint8Array[] = [];
        const target = Math.floor(rand() * 20_000);
        for (let size = 0; size < target;) {
          const pick = rand();
          const part =
            pick < 0.6
              ? strings[Math.floor(rand() * strings.length)]!
              : pick < 0.8
                ? Uint8Array.from({ length: 1 + Math.floor(rand() * 12) }, () => Math.floor(rand() * 256))
                : new TextEncoder().encode(
                    ['<div class="', '">', "function (", ") {", "; }", "\n", " "][Math.floor(rand() * 7)],
                  );
          parts.push(part);
          size += part.byteLength;
        }
        const input = Buffer.concat(parts);
        for (const quality of [5, 6, 7, 9]) {
          const out = brotliCompress(input, { quality, lgwin: 18, reducedDictionary: reducedDictionary(type) });
          expect(
            Buffer.from(brotliDecompressSync(out)).equals(input),
            `${type} #${n} q${quality} (${input.byteLength} bytes)`,
          ).toBe(true);
          if (!Buffer.from(out).equals(Buffer.from(brotliCompress(input, { quality, lgwin: 18 })))) usedTable++;
        }
      }
      // The fuzz reaches the table's references, not only stock paths.
      expect(usedTable).toBeGreaterThan(24);
    });
  }
});

const CORPUS_AND_TOOLS = firstMissing(NO_CORPUS, NO_TOOLS);

describeNeeding(CORPUS_AND_TOOLS, "codec compress --static-dict on corpus files", () => {
  const files = CORPUS_AND_TOOLS === null ? webSample() : [];

  it(
    "decodes byte-exactly with Node's zlib and with `brotli -d`, and is no bigger than stock q5",
    { timeout: 120_000 },
    async () => {
      let reducedTotal = 0;
      let stockTotal = 0;
      for (const file of files) {
        const type = typeOfPath(file.name)!;
        const cli = await palimpsest(
          ["codec", "compress", "--codec", "br", "--static-dict", type, "--lgwin", "22"],
          file.bytes,
        );
        expect(cli.status, cli.stderr).toBe(0);
        expect(
          Buffer.from(brotliDecompressSync(cli.stdout)).equals(Buffer.from(file.bytes)),
          `${file.name}: zlib`,
        ).toBe(true);
        expect(
          (await tool("brotli", ["-d", "-c"], cli.stdout)).equals(Buffer.from(file.bytes)),
          `${file.name}: brotli -d`,
        ).toBe(true);
        reducedTotal += cli.stdout.byteLength;
        stockTotal += brotliCompress(file.bytes, { quality: 5, lgwin: 22 }).byteLength;
      }
      expect(reducedTotal).toBeLessThan(stockTotal);
    },
  );

  it("decodes at every quality it accepts (5-9)", { timeout: 60_000 }, async () => {
    const page = files.find((f) => f.name.startsWith("html/"))!;
    for (const quality of [5, 7, 9]) {
      const cli = await palimpsest(
        ["codec", "compress", "--codec", "br", "--static-dict", "html", "--quality", String(quality)],
        page.bytes,
      );
      expect(cli.status, cli.stderr).toBe(0);
      expect((await tool("brotli", ["-d", "-c"], cli.stdout)).equals(Buffer.from(page.bytes))).toBe(true);
    }
  });
});

describe("codec compress --static-dict usage", () => {
  it(
    "is refused with exit 2 for other codecs, qualities outside 5-9, unknown types and decompress",
    { timeout: 60_000 },
    async () => {
      const input = new TextEncoder().encode("<p>hello</p>");
      const cases = [
        [["--codec", "gzip", "--static-dict", "html"], /--static-dict applies only to --codec br, not gzip/],
        [["--codec", "lz4", "--static-dict", "css"], /only to --codec br/],
        [["--codec", "br", "--static-dict", "html", "--quality", "11"], /--static-dict needs --quality 5\.\.9.*got 11/],
        [["--codec", "br", "--static-dict", "html", "--quality", "4"], /got 4/],
        [["--codec", "br", "--static-dict", "json"], /Allowed choices are html, css, js/],
      ] as const;
      const results = await Promise.all(cases.map(([args]) => palimpsest(["codec", "compress", ...args], input)));
      results.forEach((r, i) => {
        expect(r.status, cases[i]![0].join(" ")).toBe(2);
        expect(r.stderr).toMatch(cases[i]![1]);
      });
      const dec = await palimpsest(
        ["codec", "decompress", "--codec", "br", "--static-dict", "html"],
        new Uint8Array(0),
      );
      expect(dec.status).toBe(2);
      expect(dec.stderr).toMatch(/unknown option '--static-dict'/);
    },
  );
});
