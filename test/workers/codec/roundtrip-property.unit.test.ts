/**
 * Round-trip properties across every codec, from seeded random cases:
 * lengths 0..300 KiB, four kinds of content, random settings, and random
 * chunking for the streaming encoders and decoders. For every case:
 *
 *   decode(encode(x)) == x, whole and chunked, for brotli, LZ4 block,
 *   LZ4 frame, gzip, deflate and dcb.
 *
 * The seed and settings are in each test's name; to replay one case, set
 * SEEDS to just that seed.
 */
import "../../../src/codec/install-worker.ts";
import { describe, expect, it } from "vitest";
import {
  BrotliDecoder,
  BrotliEncoder,
  Lz4FrameDecoder,
  brotliCompress,
  brotliDecompress,
  dcbCompress,
  dcbDecompress,
  deflateCompress,
  deflateDecompress,
  gzipCompress,
  gzipDecompress,
  heapOf,
  lz4Compress,
  lz4Decompress,
  lz4FrameCompress,
  lz4FrameDecompress,
  type BrotliMode,
} from "../../../src/codec/index.ts";
import { prng, type Prng } from "./support/prng.ts";
import {
  CONTENT_KINDS,
  KiB,
  concat,
  expectSameBytes,
  makeContent,
  splitRandomly,
  type ContentKind,
} from "./support/inputs.ts";

const SEEDS = Array.from({ length: 48 }, (_, i) => 1000 + i);
const FRAME_BLOCK_SIZES = [65536, 262144, 1048576] as const;

interface Case {
  seed: number;
  length: number;
  kind: ContentKind;
  brotli: { quality: number; lgwin: number; mode: BrotliMode };
  lz4: { level: number; acceleration: number };
  frame: { level: number; blockSize: (typeof FRAME_BLOCK_SIZES)[number] };
  gzipLevel: number;
}

/** Settings come from the seed alone, so the test name can show them before any data exists. */
function caseFor(seed: number): Case {
  const r = prng(seed);
  // One case in five is tiny, where edge cases live.
  const length = r.next() < 0.2 ? r.int(0, 64) : r.int(0, 300 * KiB);
  const quality = r.int(0, 11);
  return {
    seed,
    length: quality >= 10 ? length % (64 * KiB + 1) : length, // q10/q11 in wasm are slow; keep the suite fast
    kind: r.pick(CONTENT_KINDS),
    brotli: { quality, lgwin: r.int(10, 24), mode: r.pick(["generic", "text", "font"] as const) },
    // Half fast, half HC: level 0 is the fast compressor, 1..12 select LZ4HC.
    lz4: { level: r.next() < 0.5 ? 0 : r.int(1, 12), acceleration: r.pick([1, 1, 2, 17]) },
    frame: { level: r.next() < 0.5 ? 0 : r.int(1, 12), blockSize: r.pick(FRAME_BLOCK_SIZES) },
    gzipLevel: r.int(0, 9),
  };
}

function describeCase(c: Case): string {
  return (
    `seed ${c.seed}: ${c.length} B ${c.kind} | br q${c.brotli.quality} lgwin ${c.brotli.lgwin} ${c.brotli.mode}` +
    ` | lz4 ${c.lz4.level ? `HC ${c.lz4.level}` : `fast x${c.lz4.acceleration}`}` +
    ` | frame L${c.frame.level} ${c.frame.blockSize / KiB} KiB | gzip ${c.gzipLevel}`
  );
}

function brotliInPushes(r: Prng, input: Uint8Array, options: Case["brotli"]): Uint8Array {
  const enc = new BrotliEncoder(options);
  const parts = splitRandomly(r, input, 32 * KiB).flatMap((piece) => enc.push(piece));
  parts.push(...enc.finish());
  return concat(parts);
}

function brotliInPieces(r: Prng, stream: Uint8Array): Uint8Array {
  const dec = new BrotliDecoder();
  const out = concat(splitRandomly(r, stream, 4 * KiB).flatMap((piece) => dec.push(piece)));
  dec.finish();
  return out;
}

function frameInPieces(r: Prng, frame: Uint8Array): Uint8Array {
  const dec = new Lz4FrameDecoder();
  const out = concat(splitRandomly(r, frame, 8 * KiB).flatMap((piece) => dec.push(piece)));
  dec.finish();
  return out;
}

describe("round-trip properties", () => {
  for (const seed of SEEDS) {
    const c = caseFor(seed);
    it(
      describeCase(c),
      async () => {
        const r = prng(seed ^ 0x9e3779b9);
        const input = makeContent(c.kind, r, c.length);
        const at = (codec: string) => `${codec} (${describeCase(c)})`;

        const br = brotliCompress(input, c.brotli);
        expectSameBytes(brotliDecompress(br), input, at("brotli"));
        expectSameBytes(brotliInPieces(r, br), input, at("brotli, decoded in pieces"));
        expectSameBytes(brotliDecompress(brotliInPushes(r, input, c.brotli)), input, at("brotli, encoded in pushes"));

        const block = lz4Compress(input, c.lz4);
        expectSameBytes(lz4Decompress(block), input, at("lz4 block"));

        const frame = lz4FrameCompress(input, c.frame);
        expectSameBytes(lz4FrameDecompress(frame), input, at("lz4 frame"));
        expectSameBytes(frameInPieces(r, frame), input, at("lz4 frame, decoded in pieces"));

        expectSameBytes(gzipDecompress(gzipCompress(input, { level: c.gzipLevel })), input, at("gzip"));
        expectSameBytes(deflateDecompress(deflateCompress(input, { level: c.gzipLevel })), input, at("deflate"));

        // dcb against a dictionary that shares most of the input, as a previous revision would.
        const dictionary = concat([
          input.subarray(0, input.byteLength >> 1),
          makeContent("html", r, 1 + r.int(0, 4 * KiB)),
        ]);
        const body = await dcbCompress(input, dictionary, {
          quality: Math.min(c.brotli.quality, 9),
          lgwin: c.brotli.lgwin,
        });
        expectSameBytes(await dcbDecompress(body, dictionary), input, at("dcb"));

        expect(heapOf("brotli").users).toBe(0);
        expect(heapOf("lz4").users).toBe(0);
      },
      30_000,
    );
  }
});
