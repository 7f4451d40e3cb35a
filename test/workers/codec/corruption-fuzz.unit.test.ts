/**
 * A deterministic fuzz pass over corrupted input, per codec: flip bits, set,
 * insert or delete bytes, truncate, or splice, then decode. Whatever the
 * damage, a decoder may only (a) throw a CodecError with a code that fits
 * damaged input, or (b) return bytes within the cap. Where the format has a
 * checksum (LZ4 frames, gzip), (b) must be exactly the original. Nothing may
 * trap the wasm instance, hang, or leave a heap in use.
 *
 * Each failure names its seed and case number; rerun one by narrowing CASES.
 */
import "../../../src/codec/install-worker.ts";
import { describe, expect, it } from "vitest";
import {
  CodecError,
  brotliCompress,
  brotliDecompress,
  dcbCompress,
  dcbDecompress,
  gzipCompress,
  gzipDecompress,
  heapOf,
  lz4Compress,
  lz4Decompress,
  lz4FrameCompress,
  lz4FrameDecompress,
  lz4StoredSize,
  type CodecErrorCodeName,
} from "../../../src/codec/index.ts";
import { prng, type Prng } from "./support/prng.ts";
import { KiB, concat, htmlLike, lowEntropy, sameBytes } from "./support/inputs.ts";

const CAP = 256 * KiB;

function mutate(rand: Prng, stream: Uint8Array): { bytes: Uint8Array; what: string } {
  const at = rand.int(0, stream.byteLength - 1);
  switch (rand.int(0, 6)) {
    case 0: {
      const bytes = stream.slice();
      const bit = rand.int(0, 7);
      bytes[at]! ^= 1 << bit;
      return { bytes, what: `flip bit ${bit} of byte ${at}` };
    }
    case 1: {
      const bytes = stream.slice();
      const flips = rand.int(2, 8);
      for (let i = 0; i < flips; i++) bytes[rand.int(0, bytes.byteLength - 1)]! ^= 1 << rand.int(0, 7);
      return { bytes, what: `flip ${flips} random bits` };
    }
    case 2: {
      const bytes = stream.slice();
      const value = rand.int(0, 255);
      bytes[at] = value;
      return { bytes, what: `set byte ${at} to ${value}` };
    }
    case 3: {
      const value = rand.int(0, 255);
      return {
        bytes: concat([stream.subarray(0, at), Uint8Array.of(value), stream.subarray(at)]),
        what: `insert ${value} at ${at}`,
      };
    }
    case 4:
      return { bytes: concat([stream.subarray(0, at), stream.subarray(at + 1)]), what: `delete byte ${at}` };
    case 5:
      return { bytes: stream.subarray(0, at), what: `truncate to ${at}` };
    default: {
      const from = rand.int(0, stream.byteLength - 1);
      const length = rand.int(1, 64);
      const bytes = stream.slice();
      bytes.set(stream.subarray(from, from + length).subarray(0, bytes.byteLength - at), at);
      return { bytes, what: `copy ${length} bytes from ${from} over ${at}` };
    }
  }
}

interface FuzzTarget {
  name: string;
  seed: number;
  cases: number;
  streams: { original: Uint8Array; stream: Uint8Array }[];
  decode(bytes: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /** Codes a damaged stream may legitimately produce. */
  codes: readonly CodecErrorCodeName[];
  /** True if the format carries a checksum over the content. */
  checksummed: boolean;
  /** Extra promise a successful decode must keep. */
  checkOutput?(damaged: Uint8Array, out: Uint8Array, label: string): void;
}

async function fuzz(target: FuzzTarget): Promise<void> {
  const rand = prng(target.seed);
  const outcomes = { rejected: 0, original: 0, other: 0 };
  for (let i = 0; i < target.cases; i++) {
    const { original, stream } = target.streams[i % target.streams.length]!;
    const { bytes, what } = mutate(rand, stream);
    const label = `${target.name}, seed ${target.seed}, case ${i}: ${what}`;
    let out: Uint8Array;
    try {
      out = await target.decode(bytes);
    } catch (err) {
      if (!(err instanceof CodecError)) expect.fail(`${label}: threw ${String(err)}`);
      expect(target.codes, `${label}: ${err.message}`).toContain(err.code);
      outcomes.rejected++;
      continue;
    }
    expect(out.byteLength, label).toBeLessThanOrEqual(CAP);
    target.checkOutput?.(bytes, out, label);
    if (sameBytes(out, original)) outcomes.original++;
    else if (target.checksummed) expect.fail(`${label}: decoded to ${out.byteLength} wrong bytes without an error`);
    else outcomes.other++;
  }
  // The mutator must actually damage streams, or this test proves nothing.
  expect(outcomes.rejected, JSON.stringify(outcomes)).toBeGreaterThan(target.cases / 4);
}

function afterFuzz(module: "brotli" | "lz4"): void {
  const heap = heapOf(module);
  expect(heap.broken, "no trap poisoned the instance").toBe(false);
  expect(heap.users, "every failed decoder released its heap").toBe(0);
}

const rand = prng(0xf022);
const page = htmlLike(rand, 6 * KiB);
const runs = lowEntropy(rand, 20 * KiB);
const noise = rand.bytes(2 * KiB);
const book = htmlLike(rand, 150 * KiB);

describe("corrupted input fuzz", () => {
  it("brotli: only CodecErrors or capped output, at several qualities and a large window", async () => {
    const streams = [
      { original: page, stream: brotliCompress(page, { quality: 5 }) },
      { original: page, stream: brotliCompress(page, { quality: 11, lgwin: 18 }) },
      { original: runs, stream: brotliCompress(runs, { quality: 1 }) },
      { original: noise, stream: brotliCompress(noise, { quality: 9 }) },
    ];
    await fuzz({
      name: "brotli",
      seed: 101,
      cases: 12000,
      streams,
      decode: (b) => brotliDecompress(b, { maxOutputBytes: CAP }),
      codes: ["CORRUPT_INPUT", "TRUNCATED_INPUT", "TRAILING_DATA", "OUTPUT_LIMIT"],
      checksummed: false,
    });
    const large = brotliCompress(page, { largeWindow: true, lgwin: 26 });
    await fuzz({
      name: "brotli large window",
      seed: 102,
      cases: 1500,
      streams: [{ original: page, stream: large }],
      decode: (b) => brotliDecompress(b, { maxOutputBytes: CAP, largeWindow: true }),
      codes: ["CORRUPT_INPUT", "TRUNCATED_INPUT", "TRAILING_DATA", "OUTPUT_LIMIT"],
      checksummed: false,
    });
    afterFuzz("brotli");
  }, 60_000);

  it("LZ4 block: only CodecErrors or output of the stored size", async () => {
    await fuzz({
      name: "lz4 block",
      seed: 201,
      cases: 12000,
      streams: [page, runs, noise].flatMap((original) => [
        { original, stream: lz4Compress(original) },
        { original, stream: lz4Compress(original, { level: 12 }) },
      ]),
      decode: (b) => lz4Decompress(b, { maxOutputBytes: CAP }),
      codes: ["CORRUPT_INPUT", "TRUNCATED_INPUT", "OUTPUT_LIMIT"],
      checksummed: false,
      checkOutput: (damaged, out, label) => expect(out.byteLength, label).toBe(lz4StoredSize(damaged)),
    });
    afterFuzz("lz4");
  }, 60_000);

  it("LZ4 frame: the original bytes or a CodecError, never wrong bytes", async () => {
    await fuzz({
      name: "lz4 frame",
      seed: 301,
      cases: 12000,
      streams: [
        ...[page, runs, noise].map((original) => ({ original, stream: lz4FrameCompress(original) })),
        // Several linked 64 KiB blocks, HC.
        { original: book, stream: lz4FrameCompress(book, { level: 9, blockSize: 65536 }) },
      ],
      decode: (b) => lz4FrameDecompress(b, { maxOutputBytes: CAP }),
      codes: ["CORRUPT_INPUT", "TRUNCATED_INPUT", "TRAILING_DATA", "CHECKSUM_MISMATCH", "OUTPUT_LIMIT"],
      checksummed: true,
    });
    afterFuzz("lz4");
  }, 60_000);

  it("gzip: the original bytes or a CodecError, never wrong bytes", async () => {
    await fuzz({
      name: "gzip",
      seed: 401,
      cases: 4000,
      streams: [page, runs, noise].map((original) => ({ original, stream: gzipCompress(original) })),
      decode: (b) => gzipDecompress(b, { maxOutputBytes: CAP }),
      codes: ["CORRUPT_INPUT", "TRUNCATED_INPUT", "CHECKSUM_MISMATCH", "OUTPUT_LIMIT"],
      checksummed: true,
    });
  }, 60_000);

  it("dcb: only CodecErrors or capped output, and header damage is named", async () => {
    const dictionary = htmlLike(prng(5), 8 * KiB);
    const revision = concat([dictionary.subarray(0, 4 * KiB), page.subarray(0, 512), dictionary.subarray(4 * KiB)]);
    await fuzz({
      name: "dcb",
      seed: 501,
      cases: 2000,
      streams: [{ original: revision, stream: await dcbCompress(revision, dictionary) }],
      decode: (b) => dcbDecompress(b, dictionary, { maxOutputBytes: CAP }),
      codes: ["BAD_MAGIC", "DICTIONARY_MISMATCH", "CORRUPT_INPUT", "TRUNCATED_INPUT", "TRAILING_DATA", "OUTPUT_LIMIT"],
      checksummed: false,
    });
    afterFuzz("brotli");
  }, 60_000);
});
