/**
 * LZ4 blocks with the uncompressed size stored in front (4 bytes, little
 * endian, as python-lz4's `store_size` writes them). The stored size lets the
 * decoder allocate exactly once and check the cap before decoding anything.
 * `level` 0 is the fast compressor; 1..12 select LZ4HC. Decoding runs our
 * own decoder (fast-block.ts) in the variant a bandit picks, and upstream's
 * LZ4_decompress_safe only when ours refuses a block: the reference's
 * verdict and messages stand.
 *
 * @example
 * const packed = lz4Compress(bytes, { level: 9 });
 * const same = lz4Decompress(packed);
 */
import { CodecError, invalidArgument } from "../errors.ts";
import { LIMITS } from "../../limits.ts";
import { resolveOutputCap, type OutputCapOptions } from "../output-cap.ts";
import { withHeap, type WasmHeap } from "../runtime/heap.ts";
import { NEW_BUFFER, intoBuffer, type OutputSink } from "../runtime/output-sink.ts";
import { LZ4_SLACK, decodeBlockVariant, lz4VariantBandit, lz4VariantIndex, type Lz4Variant } from "./fast-block.ts";

/** LZ4_MAX_INPUT_SIZE from lz4.h. */
const LZ4_MAX_INPUT_SIZE = 0x7e000000;
const SIZE_PREFIX = 4;

export interface Lz4CompressOptions {
  /** 0 = fast (default); 1..12 = HC levels (9 is LZ4HC's default). */
  level?: number;
  /** Fast mode's acceleration (>= 1); larger is faster and bigger. */
  acceleration?: number;
}

export type Lz4DecompressOptions = OutputCapOptions;

export function checkLz4Level(level: number): number {
  if (!Number.isInteger(level) || level < 0 || level > 12)
    throw invalidArgument(`lz4 level must be an integer 0..12, got ${level}`);
  return level;
}

export function lz4Compress(input: Uint8Array, options: Lz4CompressOptions = {}): Uint8Array {
  const level = checkLz4Level(options.level ?? 0);
  const acceleration = options.acceleration ?? 1;
  if (!Number.isInteger(acceleration) || acceleration < 1)
    throw invalidArgument(`lz4 acceleration must be an integer >= 1, got ${acceleration}`);
  if (input.byteLength > Math.min(LZ4_MAX_INPUT_SIZE, LIMITS.codec.maxOneShotInputBytes)) {
    throw new CodecError(
      "INPUT_TOO_LARGE",
      `${input.byteLength} bytes exceeds codec.maxOneShotInputBytes for an LZ4 block`,
    );
  }
  return withHeap("lz4", (heap) => {
    const bound = heap.fn.LZ4_compressBound!(input.byteLength);
    const src = heap.copyIn(input);
    let dst = 0;
    try {
      dst = heap.malloc(bound);
      const n = heap.call("LZ4_compress", () =>
        level === 0
          ? heap.fn.LZ4_compress_fast!(src, dst, input.byteLength, bound, acceleration)
          : heap.fn.LZ4_compress_HC!(src, dst, input.byteLength, bound, level),
      );
      if (n <= 0 && input.byteLength > 0) throw new CodecError("OUT_OF_MEMORY", "LZ4 compression failed");
      const out = new Uint8Array(SIZE_PREFIX + n);
      new DataView(out.buffer).setUint32(0, input.byteLength, true);
      out.set(heap.u8.subarray(dst, dst + n), SIZE_PREFIX);
      return out;
    } finally {
      heap.free(dst);
      heap.free(src);
    }
  });
}

/** Reads the stored size without decoding; useful for sizing caches. */
export function lz4StoredSize(input: Uint8Array): number {
  if (input.byteLength < SIZE_PREFIX)
    throw new CodecError("TRUNCATED_INPUT", `LZ4 block of ${input.byteLength} bytes has no size prefix`);
  return (input[0]! | (input[1]! << 8) | (input[2]! << 16) | (input[3]! << 24)) >>> 0;
}

export function lz4Decompress(input: Uint8Array, options: Lz4DecompressOptions = {}): Uint8Array {
  return decompressBlock(input, options, banditDecode, NEW_BUFFER);
}

/**
 * lz4Decompress into the caller's buffer, which must have room for the
 * block's stored size (lz4StoredSize): no allocation per call, as a native
 * decoder writes into the buffer it is given. Returns the decoded size;
 * `output` past it is left as it was, and so is all of it when the block is
 * refused.
 *
 * @example
 * const out = new Uint8Array(lz4StoredSize(packed));
 * lz4DecompressInto(packed, out);
 */
export function lz4DecompressInto(input: Uint8Array, output: Uint8Array, options: Lz4DecompressOptions = {}): number {
  const size = lz4StoredSize(input);
  if (size > output.byteLength) {
    throw new CodecError(
      "OUTPUT_LIMIT",
      `LZ4 block holds ${size} bytes; the output buffer has room for ${output.byteLength}`,
    );
  }
  return decompressBlock(input, options, banditDecode, intoBuffer(output));
}

/**
 * lz4Decompress with one fixed decoder, for benchmarks and tests: one of our
 * variants (still confirmed by the reference when it refuses a block), or
 * "reference", upstream's LZ4_decompress_safe alone, as before our decoder.
 */
export function lz4DecompressWith(
  input: Uint8Array,
  variant: Lz4Variant | "reference",
  options: Lz4DecompressOptions = {},
): Uint8Array {
  if (variant === "reference") return decompressBlock(input, options, () => -1, NEW_BUFFER);
  const arm = lz4VariantIndex(variant);
  return decompressBlock(
    input,
    options,
    (heap, src, srcLen, dst, size) => decodeBlockVariant(heap, src, srcLen, dst, 0, size, arm),
    NEW_BUFFER,
  );
}

type FastDecode = (heap: WasmHeap, src: number, srcLen: number, dst: number, size: number) => number;

const banditDecode: FastDecode = (heap, src, srcLen, dst, size) =>
  lz4VariantBandit.run(
    (arm) => decodeBlockVariant(heap, src, srcLen, dst, 0, size, arm),
    (n) => (n === size ? size : 0),
    () => [Math.log(srcLen / size), Math.log(size)],
  );
const NOTHING = new Uint8Array(0);

function decompressBlock<T>(
  input: Uint8Array,
  options: Lz4DecompressOptions,
  fast: FastDecode,
  sink: OutputSink<T>,
): T {
  const cap = resolveOutputCap(options.maxOutputBytes);
  const size = lz4StoredSize(input);
  if (size > cap || size > LZ4_MAX_INPUT_SIZE) {
    throw new CodecError("OUTPUT_LIMIT", `LZ4 block claims ${size} bytes, over the ${cap}-byte cap`);
  }
  const bodyBytes = input.byteLength - SIZE_PREFIX;
  if (size === 0) {
    if (bodyBytes === 1 && input[SIZE_PREFIX] === 0) return sink.fromHeap(NOTHING, 0, 0);
    throw new CodecError("CORRUPT_INPUT", "LZ4 block of size 0 has an unexpected body");
  }
  // A block can expand at most 255x; a smaller input cannot honestly hold `size` bytes.
  if (bodyBytes === 0 || size > bodyBytes * 255 + 16) {
    throw new CodecError(
      "CORRUPT_INPUT",
      `LZ4 block of ${bodyBytes} bytes cannot decode to the ${size} bytes it claims`,
    );
  }
  return withHeap("lz4", (heap) => {
    // One allocation per call, hot tier reads being many and small: the
    // output, its slack, then the whole input (its size prefix included,
    // which spares a subarray) and the input's slack. The fast decoder's wild
    // writes stay within the output's slack; the reference ignores both.
    const dst = heap.malloc(size + LZ4_SLACK + input.byteLength + LZ4_SLACK);
    try {
      const src = dst + size + LZ4_SLACK + SIZE_PREFIX;
      heap.u8.set(input, src - SIZE_PREFIX);
      if (fast(heap, src, bodyBytes, dst, size) === size) return sink.fromHeap(heap.u8, dst, size);
      // Our decoder refused the block (or was not asked): the reference decides, with its own messages.
      const n = heap.call("LZ4_decompress_safe", () => heap.fn.LZ4_decompress_safe!(src, dst, bodyBytes, size));
      if (n < 0)
        throw new CodecError("CORRUPT_INPUT", `LZ4 block is corrupt (decoder stopped at input byte ${-n - 1})`);
      if (n !== size)
        throw new CodecError("CORRUPT_INPUT", `LZ4 block decoded to ${n} bytes, but its header says ${size}`);
      return sink.fromHeap(heap.u8, dst, n);
    } finally {
      heap.free(dst);
    }
  });
}
