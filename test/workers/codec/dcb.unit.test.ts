/**
 * RFC 9842 `dcb` (dictionary-compressed brotli) in workerd: the 36-byte
 * header (FF 44 43 42, then the SHA-256 of the dictionary), round trips, and
 * the errors a client sees when the body or the dictionary is wrong.
 */
import "../../../src/codec/install-worker.ts";
import { describe, expect, it } from "vitest";
import {
  BrotliDictionary,
  DCB_HEADER_BYTES,
  DCB_MAGIC,
  brotliCompress,
  brotliDecompress,
  dcbCompress,
  dcbDecompress,
  dcbFrame,
  dcbUnframe,
  heapOf,
} from "../../../src/codec/index.ts";
import { prng } from "./support/prng.ts";
import {
  KiB,
  concat,
  expectCodecError,
  expectCodecErrorAsync,
  expectSameBytes,
  hex,
  htmlLike,
  utf8,
} from "./support/inputs.ts";

const rand = prng(0xdcb);
const dictionary = htmlLike(rand, 32 * KiB);
const page = concat([
  dictionary.subarray(0, 20 * KiB),
  utf8("<p>a new paragraph in this revision</p>\n"),
  dictionary.subarray(20 * KiB),
]);

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

describe("dcb framing", () => {
  it("starts with FF 44 43 42 and the dictionary's SHA-256, then a brotli stream that uses the dictionary", async () => {
    const body = await dcbCompress(page, dictionary, { quality: 9 });
    expect(DCB_HEADER_BYTES).toBe(36);
    expect(hex(body.subarray(0, 4))).toBe("ff444342");
    expect(hex(DCB_MAGIC)).toBe("ff444342");
    expect(hex(body.subarray(4, 36))).toBe(hex(await sha256(dictionary)));
    const payload = body.subarray(36);
    expectSameBytes(brotliDecompress(payload, { dictionary }), page);
    expect(payload.byteLength * 10).toBeLessThan(brotliCompress(page, { quality: 9 }).byteLength);
  });

  it("round-trips with the dictionary given as bytes or as a reusable BrotliDictionary", async () => {
    expectSameBytes(await dcbDecompress(await dcbCompress(page, dictionary), dictionary), page, "bytes");
    const dict = new BrotliDictionary(dictionary);
    try {
      expect(hex(await dict.sha256())).toBe(hex(await sha256(dictionary)));
      for (let i = 0; i < 5; i++) {
        const revision = concat([page, utf8(`<p>edit ${i}</p>`)]);
        expectSameBytes(await dcbDecompress(await dcbCompress(revision, dict), dict), revision, `revision ${i}`);
      }
    } finally {
      dict.dispose();
    }
    expect(heapOf("brotli").users).toBe(0);
  });

  it("splits a body into the hash it names and its payload, and frames them back identically", async () => {
    const body = await dcbCompress(page, dictionary);
    const { dictionarySha256, payload } = dcbUnframe(body);
    expect(hex(dictionarySha256)).toBe(hex(await sha256(dictionary)));
    expect(hex(dcbFrame(dictionarySha256, payload))).toBe(hex(body));
  });

  it("rejects a hash that is not 32 bytes with INVALID_ARGUMENT", () => {
    expectCodecError(() => dcbFrame(new Uint8Array(31), Uint8Array.of(0x3b)), "INVALID_ARGUMENT");
  });
});

describe("dcb errors", () => {
  it("rejects a body shorter than the header with TRUNCATED_INPUT", async () => {
    const body = await dcbCompress(page, dictionary);
    for (const n of [0, 3, 4, 35]) {
      expectCodecError(() => dcbUnframe(body.subarray(0, n)), "TRUNCATED_INPUT");
      await expectCodecErrorAsync(() => dcbDecompress(body.subarray(0, n), dictionary), "TRUNCATED_INPUT");
    }
  });

  it("rejects a header-only body, or a cut payload, with TRUNCATED_INPUT", async () => {
    const body = await dcbCompress(page, dictionary);
    await expectCodecErrorAsync(() => dcbDecompress(body.subarray(0, 36), dictionary), "TRUNCATED_INPUT");
    await expectCodecErrorAsync(
      () => dcbDecompress(body.subarray(0, body.byteLength - 1), dictionary),
      "TRUNCATED_INPUT",
    );
  });

  it("rejects a body without the magic with BAD_MAGIC, whichever magic byte is wrong", async () => {
    const body = await dcbCompress(page, dictionary);
    for (let i = 0; i < 4; i++) {
      const bad = body.slice();
      bad[i]! ^= 0x01;
      expectCodecError(() => dcbUnframe(bad), "BAD_MAGIC");
      await expectCodecErrorAsync(() => dcbDecompress(bad, dictionary), "BAD_MAGIC");
    }
    // A plain brotli stream is not a dcb body.
    await expectCodecErrorAsync(
      () => dcbDecompress(concat([brotliCompress(page), new Uint8Array(36)]), dictionary),
      "BAD_MAGIC",
    );
  });

  it("rejects another dictionary, even one differing in a single byte, with DICTIONARY_MISMATCH", async () => {
    const body = await dcbCompress(page, dictionary);
    const other = dictionary.slice();
    other[other.byteLength - 1]! ^= 1;
    await expectCodecErrorAsync(() => dcbDecompress(body, other), "DICTIONARY_MISMATCH");
    await expectCodecErrorAsync(() => dcbDecompress(body, htmlLike(prng(2), 1 * KiB)), "DICTIONARY_MISMATCH");
  });

  it("is what catches a wrong dictionary: plain brotli decodes against it to wrong bytes without an error", async () => {
    const body = await dcbCompress(page, dictionary);
    const sameLength = htmlLike(prng(3), dictionary.byteLength);
    const garbled = brotliDecompress(dcbUnframe(body).payload, { dictionary: sameLength });
    expect(garbled.byteLength).toBe(page.byteLength);
    expect(hex(garbled)).not.toBe(hex(page));
    await expectCodecErrorAsync(() => dcbDecompress(body, sameLength), "DICTIONARY_MISMATCH");
  });

  it("rejects a body whose header hash was altered with DICTIONARY_MISMATCH", async () => {
    const body = await dcbCompress(page, dictionary);
    body[4 + 31]! ^= 0x80;
    await expectCodecErrorAsync(() => dcbDecompress(body, dictionary), "DICTIONARY_MISMATCH");
  });

  it("applies the output cap to the payload", async () => {
    const body = await dcbCompress(page, dictionary);
    await expectCodecErrorAsync(
      () => dcbDecompress(body, dictionary, { maxOutputBytes: page.byteLength - 1 }),
      "OUTPUT_LIMIT",
    );
    expect((await dcbDecompress(body, dictionary, { maxOutputBytes: page.byteLength })).byteLength).toBe(
      page.byteLength,
    );
  });

  it("rejects bytes after the payload with TRAILING_DATA", async () => {
    const body = await dcbCompress(page, dictionary);
    await expectCodecErrorAsync(() => dcbDecompress(concat([body, Uint8Array.of(0)]), dictionary), "TRAILING_DATA");
  });

  it("leaves no heap in use after all these failures", () => {
    expect(heapOf("brotli").users).toBe(0);
    expect(heapOf("brotli").broken).toBe(false);
  });
});
