/**
 * The `.psd` table format: one set of pairs has one encoding (sorted, no
 * repeats), the reader refuses anything else, and every field is range-checked
 * against brotli's dictionary and RFC 7932's transform list.
 */
import { describe, expect, it } from "vitest";
import {
  ALL_PAIRS,
  decodeTable,
  encodeTable,
  TableFormatError,
  wordCount,
  type TableEntry,
} from "../../../../src/codec/dict/table-format.ts";
import { describeTransform, TRANSFORMS, TRANSFORM_COUNT } from "../../../../src/tools/dict/transforms.ts";
import { staticDictTypeFor } from "../../../../src/codec/dict/static-dict.ts";
import { LIMITS } from "../../../../src/limits.ts";

const e = (length: number, index: number, transform: number): TableEntry => ({ length, index, transform });

describe("reduced dictionary table format", () => {
  it("writes the magic, a little-endian count and 4-byte entries sorted by (length, index, transform)", () => {
    const bytes = encodeTable([e(5, 300, 1), e(4, 1023, 0), e(5, 300, 0), e(4, 1023, 0)]);
    expect(Buffer.from(bytes).toString("hex")).toBe(
      Buffer.from("PSD1").toString("hex") + "03000000" + "04ff0300" + "052c0100" + "052c0101",
    );
    expect(decodeTable(bytes)).toEqual([e(4, 1023, 0), e(5, 300, 0), e(5, 300, 1)]);
  });

  it("gives the same bytes for the same pairs in any order", () => {
    const pairs = [e(24, 31, 120), e(4, 0, 0), e(7, 2047, 44), e(12, 5, 9)];
    expect(encodeTable(pairs)).toEqual(encodeTable([...pairs].reverse()));
  });

  it("refuses words and transforms brotli does not have", () => {
    expect(() => encodeTable([e(3, 0, 0)])).toThrow(TableFormatError);
    expect(() => encodeTable([e(25, 0, 0)])).toThrow(TableFormatError);
    expect(() => encodeTable([e(4, 1024, 0)])).toThrow(/word index 1024 is outside 0..1023/);
    expect(() => encodeTable([e(24, 32, 0)])).toThrow(/outside 0..31/);
    expect(() => encodeTable([e(6, 2047, 121)])).toThrow(/transform 121/);
  });

  it("refuses bad magic, a count that disagrees with the length, disorder and repeats", () => {
    const good = encodeTable([e(4, 1, 0), e(4, 2, 0)]);
    const bad = (edit: (b: Uint8Array) => Uint8Array) => () => decodeTable(edit(Uint8Array.from(good)));
    expect(bad((b) => (b.set([0x50, 0x53, 0x44, 0x32]), b))).toThrow(/bad magic/);
    expect(bad((b) => b.subarray(0, b.length - 1))).toThrow(/entries/);
    expect(bad((b) => (b.set([3], 4), b))).toThrow(/says 3 entries/);
    expect(bad((b) => (b.set([4, 2, 0, 0, 4, 1, 0, 0], 8), b))).toThrow(/out of order/);
    expect(bad((b) => (b.set([4, 1, 0, 0, 4, 1, 0, 0], 8), b))).toThrow(/repeated/);
  });

  it("holds an edge table to staticDict.maxTableEntries, and a candidate table of every pair only when asked", () => {
    const many = Array.from({ length: LIMITS.staticDict.maxTableEntries + 1 }, (_, i) => e(4, i % 1024, i >> 10));
    expect(() => encodeTable(many)).toThrow(/staticDict.maxTableEntries/);
    expect(decodeTable(encodeTable(many, { maxEntries: ALL_PAIRS }), { maxEntries: ALL_PAIRS })).toHaveLength(
      many.length,
    );
    expect(ALL_PAIRS).toBe(13_504 * 121);
  });

  it("counts the dictionary's words per length as RFC 7932 does (122,784 bytes in all)", () => {
    let bytes = 0;
    for (let length = 4; length <= 24; length++) bytes += length * wordCount(length);
    expect(bytes).toBe(122_784);
    expect(wordCount(3)).toBe(0);
  });
});

describe("RFC 7932 transforms", () => {
  it("has all 121, with the RFC's first, a suffix and the last", () => {
    expect(TRANSFORMS).toHaveLength(TRANSFORM_COUNT);
    expect(TRANSFORMS[0]).toEqual(["", "identity", ""]);
    expect(TRANSFORMS[21]).toEqual(["", "identity", '">']);
    expect(TRANSFORMS[102]).toEqual(["\u00a0", "identity", ""]);
    expect(TRANSFORMS[120]).toEqual([" ", "uppercase-first", "='"]);
    expect(describeTransform(44)).toBe("UPPER(word)");
    expect(describeTransform(7)).toBe('"s " + word + " "');
  });
});

describe("table by Content-Type", () => {
  it("maps HTML, CSS and JavaScript media types, parameters and case aside; everything else is stock brotli", () => {
    expect(staticDictTypeFor("text/html; charset=utf-8")).toBe("html");
    expect(staticDictTypeFor("Text/CSS")).toBe("css");
    expect(staticDictTypeFor("application/javascript")).toBe("js");
    expect(staticDictTypeFor("text/javascript;charset=UTF-8")).toBe("js");
    for (const other of [
      "application/json",
      "application/problem+json",
      "application/link-format",
      "text/plain",
      "",
      null,
      undefined,
    ]) {
      expect(staticDictTypeFor(other)).toBeUndefined();
    }
  });
});
