/**
 * Decoding a brotli stream of known size in one call (brotliDecompressKnownSize,
 * as storage reads do): the same bytes as the streaming decoder, a prefix
 * without decoding past it, and each way a stream can disagree with the
 * size it was promised named by its error.
 */
import "../../../src/codec/install-worker.ts";
import { describe, expect, it } from "vitest";
import {
  brotliCompress,
  brotliDecompress,
  brotliDecompressInto,
  brotliDecompressKnownSize,
} from "../../../src/codec/index.ts";
import { LIMITS } from "../../../src/limits.ts";
import { prng } from "./support/prng.ts";
import { KiB, MiB, concat, expectCodecError, expectSameBytes, htmlLike } from "./support/inputs.ts";

const rand = prng(0x512e);
const page = htmlLike(rand, 300 * KiB);
const packed = brotliCompress(page, { quality: 5 });

describe("brotliDecompressKnownSize", () => {
  it("decodes a whole stream, with or without a dictionary, as the streaming decoder does", () => {
    expectSameBytes(brotliDecompressKnownSize(packed, page.byteLength), page);
    const dictionary = page.subarray(0, 200 * KiB);
    const delta = brotliCompress(page, { quality: 5, dictionary });
    expectSameBytes(
      brotliDecompressKnownSize(delta, page.byteLength, { dictionary }),
      brotliDecompress(delta, { dictionary }),
    );
  });

  it("decodes only a prefix when asked, and returns exactly it", () => {
    for (const n of [1, 1000, 64 * KiB, page.byteLength - 1]) {
      expectSameBytes(brotliDecompressKnownSize(packed, n, { whole: false }), page.subarray(0, n));
    }
  });

  it("names a stream longer than promised, one cut short, and bytes after the end", () => {
    expect(
      expectCodecError(() => brotliDecompressKnownSize(packed, page.byteLength - 1), "OUTPUT_LIMIT").message,
    ).toMatch(/past/);
    expectCodecError(
      () => brotliDecompressKnownSize(packed.subarray(0, packed.byteLength >> 1), page.byteLength),
      "TRUNCATED_INPUT",
    );
    expectCodecError(
      () => brotliDecompressKnownSize(concat([packed, Uint8Array.of(1, 2, 3)]), page.byteLength),
      "TRAILING_DATA",
    );
    // A stream that ends before the promised size comes back short, for the caller to judge.
    expect(brotliDecompressKnownSize(packed, page.byteLength + 10).byteLength).toBe(page.byteLength);
  });

  it("streams sizes past codec.knownSizeDecodeBytes, to the same bytes", () => {
    const big = htmlLike(rand, LIMITS.codec.knownSizeDecodeBytes + MiB);
    const bigPacked = brotliCompress(big, { quality: 1 });
    expectSameBytes(brotliDecompressKnownSize(bigPacked, big.byteLength), big);
    expectSameBytes(brotliDecompressKnownSize(bigPacked, 3 * MiB, { whole: false }), big.subarray(0, 3 * MiB));
    // A prefix past that size, of a stream that goes on (a storage read of an early member of a big group).
    const prefix = LIMITS.codec.knownSizeDecodeBytes + MiB / 2;
    expectSameBytes(brotliDecompressKnownSize(bigPacked, prefix, { whole: false }), big.subarray(0, prefix));
  });

  it("reads an empty stream whole", () => {
    expect(brotliDecompressKnownSize(brotliCompress(new Uint8Array(0)), 0).byteLength).toBe(0);
    expectCodecError(
      () => brotliDecompressKnownSize(concat([brotliCompress(new Uint8Array(0)), Uint8Array.of(9)]), 0),
      "TRAILING_DATA",
    );
  });
});

describe("brotliDecompressInto", () => {
  it("decodes into the caller's buffer, with or without a dictionary, leaving the rest of it alone", () => {
    const out = new Uint8Array(page.byteLength + 5).fill(0xee);
    expect(brotliDecompressInto(packed, out)).toBe(page.byteLength);
    expectSameBytes(out.subarray(0, page.byteLength), page);
    expect(out.subarray(page.byteLength).every((b) => b === 0xee)).toBe(true);
    const dictionary = page.subarray(0, 200 * KiB);
    const delta = brotliCompress(page, { quality: 5, dictionary });
    const again = new Uint8Array(page.byteLength);
    expect(brotliDecompressInto(delta, again, { dictionary })).toBe(page.byteLength);
    expectSameBytes(again, page);
  });

  it("refuses a buffer too small, a stream cut short and bytes after the end", () => {
    expectCodecError(() => brotliDecompressInto(packed, new Uint8Array(page.byteLength - 1)), "OUTPUT_LIMIT");
    expectCodecError(
      () => brotliDecompressInto(packed.subarray(0, packed.byteLength >> 1), new Uint8Array(page.byteLength)),
      "TRUNCATED_INPUT",
    );
    expectCodecError(
      () => brotliDecompressInto(concat([packed, Uint8Array.of(1)]), new Uint8Array(page.byteLength)),
      "TRAILING_DATA",
    );
    expect(brotliDecompressInto(brotliCompress(new Uint8Array(0)), new Uint8Array(0))).toBe(0);
  });

  it("streams into buffers past codec.knownSizeDecodeBytes, to the same bytes", () => {
    const big = htmlLike(rand, LIMITS.codec.knownSizeDecodeBytes + MiB);
    const out = new Uint8Array(big.byteLength);
    expect(brotliDecompressInto(brotliCompress(big, { quality: 1 }), out)).toBe(big.byteLength);
    expectSameBytes(out, big);
  });
});
