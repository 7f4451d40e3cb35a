/**
 * Prepared raw dictionaries are kept for reuse: a dictionary seen again is
 * not prepared again, a buffer refilled with another dictionary is never
 * served the old preparation, the cache stays within its heap budget, and a
 * stream whose dictionary is pushed out mid-way still finishes right.
 */
import "../../../src/codec/install-worker.ts";
import { describe, expect, it } from "vitest";
import {
  BrotliDecoder,
  BrotliEncoder,
  brotliCompress,
  brotliDecompress,
  dcbCompress,
  dcbDecompress,
  heapOf,
  preparedDictionaryCacheStats,
  preparedDictionaryHeapBytes,
} from "../../../src/codec/index.ts";
import { LIMITS } from "../../../src/limits.ts";
import { prng } from "./support/prng.ts";
import { KiB, concat, expectSameBytes, htmlLike, utf8 } from "./support/inputs.ts";

const rand = prng(0xd1c7);

function revisionOf(dictionary: Uint8Array, note: string): Uint8Array {
  const half = dictionary.byteLength >> 1;
  return concat([dictionary.subarray(0, half), utf8(`<p>${note}</p>`), dictionary.subarray(half)]);
}

describe("the prepared-dictionary cache", () => {
  it("prepares a dictionary once: the second call takes no more heap and gives the same bytes", () => {
    const dictionary = htmlLike(rand, 200 * KiB);
    const page = revisionOf(dictionary, "second revision");
    const first = brotliCompress(page, { quality: 5, dictionary });
    const heapAfterFirst = heapOf("brotli").bytes;
    const entries = preparedDictionaryCacheStats().entries;
    const second = brotliCompress(page, { quality: 5, dictionary });
    expect(preparedDictionaryCacheStats().entries).toBe(entries);
    expect(heapOf("brotli").bytes).toBe(heapAfterFirst);
    expectSameBytes(second, first);
    expectSameBytes(brotliDecompress(second, { dictionary }), page);
    expect(second.byteLength * 20).toBeLessThan(brotliCompress(page, { quality: 5 }).byteLength);
  });

  it("never hands a refilled buffer the preparation of what it held before", () => {
    const buffer = htmlLike(rand, 64 * KiB);
    const before = revisionOf(buffer, "before");
    expectSameBytes(
      brotliDecompress(brotliCompress(before, { quality: 5, dictionary: buffer }), { dictionary: buffer }),
      before,
    );
    // Refilled whole, then changed in a few bytes only: neither may meet the old preparation.
    for (const refill of [() => buffer.set(htmlLike(rand, 64 * KiB)), () => buffer.fill(0x2a, 1001, 1009)]) {
      refill();
      const after = revisionOf(buffer, "after");
      const packed = brotliCompress(after, { quality: 5, dictionary: buffer });
      expectSameBytes(brotliDecompress(packed, { dictionary: buffer.slice() }), after);
      expectSameBytes(brotliDecompress(packed, { dictionary: buffer }), after);
    }
  });

  it("finds dcb's dictionary by its SHA-256, whichever bytes object carries it", async () => {
    const dictionary = htmlLike(rand, 48 * KiB);
    const page = revisionOf(dictionary, "dcb");
    const body = await dcbCompress(page, dictionary, { quality: 5 });
    const entries = preparedDictionaryCacheStats().entries;
    const again = await dcbCompress(page, dictionary.slice(), { quality: 5 });
    expect(preparedDictionaryCacheStats().entries).toBe(entries);
    expectSameBytes(again, body);
    expectSameBytes(await dcbDecompress(again, dictionary.slice()), page);
  });

  it("stays within its heap budget over many dictionaries, and the heap stops growing", () => {
    const size = 256 * KiB;
    let heapAfterFill = 0;
    for (let i = 0; i < 24; i++) {
      const dictionary = htmlLike(rand, size);
      const page = revisionOf(dictionary, `page ${i}`);
      expectSameBytes(brotliDecompress(brotliCompress(page, { quality: 5, dictionary }), { dictionary }), page);
      expect(preparedDictionaryCacheStats().heapBytes).toBeLessThanOrEqual(LIMITS.codec.preparedDictionaryCacheBytes);
      if (i === 12) heapAfterFill = heapOf("brotli").bytes;
    }
    expect(preparedDictionaryCacheStats().entries).toBeLessThanOrEqual(
      Math.floor(LIMITS.codec.preparedDictionaryCacheBytes / preparedDictionaryHeapBytes(size)),
    );
    // Evicted preparations are freed and their heap reused: after the cache filled, growth stays within
    // allocator slack, where keeping them all would have taken 11 more preparations (about 20 MiB).
    expect(heapOf("brotli").bytes - heapAfterFill).toBeLessThan(2 * preparedDictionaryHeapBytes(size));
  });

  it("decodes without taking a cache entry, and frees each decode's copy of the dictionary", () => {
    const dictionary = htmlLike(rand, 200 * KiB);
    const page = revisionOf(dictionary, "read");
    const packed = brotliCompress(page, { quality: 5, dictionary });
    const entries = preparedDictionaryCacheStats().entries;
    expectSameBytes(brotliDecompress(packed, { dictionary: dictionary.slice() }), page);
    const heap = heapOf("brotli").bytes;
    // Storage reads make their dictionary afresh each time: none of them may stay in the heap or the cache.
    for (let i = 0; i < 40; i++) expectSameBytes(brotliDecompress(packed, { dictionary: dictionary.slice() }), page);
    expect(preparedDictionaryCacheStats().entries).toBe(entries);
    expect(heapOf("brotli").bytes).toBe(heap);
  });

  it("finishes a stream whose dictionary is pushed out while it runs", () => {
    const dictionary = htmlLike(rand, 128 * KiB);
    const page = revisionOf(dictionary, "streamed");
    const encoder = new BrotliEncoder({ quality: 5, dictionary });
    const decoder = new BrotliDecoder({ dictionary });
    const parts = [...encoder.push(page.subarray(0, 50 * KiB))];
    // Enough other dictionaries to push this one out of the cache.
    for (let i = 0; i < 40; i++) brotliCompress(utf8("x"), { quality: 5, dictionary: htmlLike(rand, 256 * KiB) });
    parts.push(...encoder.push(page.subarray(50 * KiB)), ...encoder.finish());
    const out = concat(parts.flatMap((p) => decoder.push(p)));
    decoder.finish();
    expectSameBytes(out, page);
  });
});
