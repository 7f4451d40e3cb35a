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
  if (!Number.isInteger(level) || level < 0 || level > 12) throw invalidArgument(`lz4 level must be an integer 0..12, got ${level}`);
  return level;
}

export function lz4Compress(input: Uint8Array, options: Lz4CompressOptions = {}): Uint8Array {
  const level = checkLz4Level(options.level ?? 0);
  const acceleration = options.acceleration ?? 1;
  if (!Number.isInteger(acceleration) || acceleration < 1) throw invalidArgument(`lz4 acceleration must be an integer >= 1, got ${acceleration}`);
  if (input.byteLength > Math.min(LZ4_MAX_INPUT_SIZE, LIMITS.codec.maxOneShotInputBytes)) {
    throw new CodecError("INPUT_TOO_LARGE", `${input.byteLength} bytes exceeds codec.maxOneShotInputBytes for an LZ4 block`);
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
  if (input.byteLength < SIZE_PREFIX) throw new CodecError("TRUNCATED_INPUT", `LZ4 block of ${input.byteLength} bytes has no size prefix`);
  return new DataView(input.buffer, input.byteOffset, SIZE_PREFIX).getUint32(0, true);
}

export function lz4Decompress(input: Uint8Array, options: Lz4DecompressOptions = {}): Uint8Array {
  return decompressBlock(input, options, (heap, src, srcLen, dst, size) =>
    lz4VariantBandit.run(
      (arm) => decodeBlockVariant(heap, src, srcLen, dst, 0, size, arm),
      (n) => (n === size ? size : 0),
      () => Math.log(srcLen / size),
    ),
  );
}

/**
 * lz4Decompress with one fixed decoder, for benchmarks and tests: one of our
 * variants (still confirmed by the reference when it refuses a block), or
 * "reference", upstream's LZ4_decompress_safe alone, as before our decoder.
 */
export function lz4DecompressWith(input: Uint8Array, variant: Lz4Variant | "reference", options: Lz4DecompressOptions = {}): Uint8Array {
  if (variant === "reference") return decompressBlock(input, options, () => -1);
  const arm = lz4VariantIndex(variant);
  return decompressBlock(input, options, (heap, src, srcLen, dst, size) => decodeBlockVariant(heap, src, srcLen, dst, 0, size, arm));
}

type FastDecode = (heap: WasmHeap, src: number, srcLen: number, dst: number, size: number) => number;

function decompressBlock(input: Uint8Array, options: Lz4DecompressOptions, fast: FastDecode): Uint8Array {
  const cap = resolveOutputCap(options.maxOutputBytes);
  const size = lz4StoredSize(input);
  if (size > cap || size > LZ4_MAX_INPUT_SIZE) {
    throw new CodecError("OUTPUT_LIMIT", `LZ4 block claims ${size} bytes, over the ${cap}-byte cap`);
  }
  const body = input.subarray(SIZE_PREFIX);
  if (size === 0) {
    if (body.byteLength === 1 && body[0] === 0) return new Uint8Array(0);
    throw new CodecError("CORRUPT_INPUT", "LZ4 block of size 0 has an unexpected body");
  }
  // A block can expand at most 255x; a smaller input cannot honestly hold `size` bytes.
  if (body.byteLength === 0 || size > body.byteLength * 255 + 16) {
    throw new CodecError("CORRUPT_INPUT", `LZ4 block of ${body.byteLength} bytes cannot decode to the ${size} bytes it claims`);
  }
  return withHeap("lz4", (heap) => {
    // Both buffers carry the fast decoder's slack; the reference ignores it.
    const src = heap.malloc(body.byteLength + LZ4_SLACK);
    let dst = 0;
    try {
      heap.u8.set(body, src);
      dst = heap.malloc(size + LZ4_SLACK);
      if (fast(heap, src, body.byteLength, dst, size) === size) return heap.copyOut(dst, size);
      // Our decoder refused the block (or was not asked): the reference decides, with its own messages.
      const n = heap.call("LZ4_decompress_safe", () => heap.fn.LZ4_decompress_safe!(src, dst, body.byteLength, size));
      if (n < 0) throw new CodecError("CORRUPT_INPUT", `LZ4 block is corrupt (decoder stopped at input byte ${-n - 1})`);
      if (n !== size) throw new CodecError("CORRUPT_INPUT", `LZ4 block decoded to ${n} bytes, but its header says ${size}`);
      return heap.copyOut(dst, n);
    } finally {
      heap.free(dst);
      heap.free(src);
    }
  });
}
