/**
 * The LZ4 frame format (what the `lz4` command-line tool reads and writes):
 * magic, descriptor, checksummed blocks, end mark, content checksum.
 * Compression is one-shot; decompression streams through fixed buffers, or,
 * for a whole frame that fits in the heap, runs our own decoder at once.
 *
 * @example
 * const frame = lz4FrameCompress(bytes, { level: 9 });   // `lz4 -d` reads it
 * const same = lz4FrameDecompress(frame);
 */
import { CodecError, invalidArgument } from "../errors.ts";
import { LIMITS } from "../../limits.ts";
import { OutputBudget, resolveOutputCap } from "../output-cap.ts";
import { withHeap, type WasmHeap } from "../runtime/heap.ts";
import { HeapLease } from "../runtime/heap-lease.ts";
import { NEW_BUFFER, intoBuffer, type OutputSink } from "../runtime/output-sink.ts";
import { concatChunks } from "../runtime/stream-io.ts";
import { checkLz4Level, type Lz4DecompressOptions } from "./block.ts";
import { FAST_FRAME_DICT_ID, decodeFrameFast, lz4FrameVariantBandit } from "./fast-frame.ts";

export interface Lz4FrameOptions {
  /** 0 = fast (default), 3..12 = HC. */
  level?: number;
  /** Maximum block size: 64 KiB, 256 KiB, 1 MiB or 4 MiB. Default 4 MiB. */
  blockSize?: 65536 | 262144 | 1048576 | 4194304;
}

const BLOCK_SIZE_IDS = new Map([
  [65536, 4],
  [262144, 5],
  [1048576, 6],
  [4194304, 7],
]);

function frameError(heap: WasmHeap, code: number, what: string): CodecError {
  const name = heap.cString(heap.fn.LZ4F_getErrorName!(code));
  if (/checksum/i.test(name)) return new CodecError("CHECKSUM_MISMATCH", `${what}: ${name}`);
  if (/allocation/i.test(name)) return new CodecError("OUT_OF_MEMORY", `${what}: ${name}`);
  return new CodecError("CORRUPT_INPUT", `${what}: ${name}`);
}

export function lz4FrameCompress(input: Uint8Array, options: Lz4FrameOptions = {}): Uint8Array {
  const level = checkLz4Level(options.level ?? 0);
  const blockSizeId = BLOCK_SIZE_IDS.get(options.blockSize ?? 4194304);
  if (blockSizeId === undefined)
    throw invalidArgument(`lz4 frame blockSize must be 64 KiB, 256 KiB, 1 MiB or 4 MiB, got ${options.blockSize}`);
  if (input.byteLength > LIMITS.codec.maxOneShotInputBytes) {
    throw new CodecError(
      "INPUT_TOO_LARGE",
      `${input.byteLength} bytes exceeds codec.maxOneShotInputBytes for an LZ4 frame`,
    );
  }
  return withHeap("lz4", (heap) => {
    const bound = heap.fn.pal_lz4f_compress_bound!(input.byteLength, level, blockSizeId) >>> 0;
    const src = heap.copyIn(input);
    let dst = 0;
    try {
      dst = heap.malloc(bound);
      const n =
        heap.call("LZ4F_compressFrame", () =>
          heap.fn.pal_lz4f_compress!(dst, bound, src, input.byteLength, level, blockSizeId),
        ) >>> 0;
      if (heap.fn.LZ4F_isError!(n)) throw frameError(heap, n, "LZ4 frame compression failed");
      return heap.copyOut(dst, n);
    } finally {
      heap.free(dst);
      heap.free(src);
    }
  });
}

/**
 * The decoder's output buffer: the largest block size a frame can declare.
 *
 * LZ4F decodes a block straight into the caller's buffer only when that has
 * room for a whole block; otherwise it decodes into its own buffer and copies
 * out across calls. That second path, with linked blocks, computes a source
 * address below the caller's buffer (lz4frame.c, the "preserve history"
 * step after a partial flush) and hands it to memcpy with a length of 0.
 * Harmless natively, but wasm's memory.copy traps on an out-of-bounds address
 * even for 0 bytes, so frames with linked blocks larger than about 1.5 MiB
 * trapped. With room for a whole block in every call, a block LZ4F decodes
 * into its own buffer is flushed within two calls, the second into an empty
 * buffer with room for all of it, and the address it computes stays in ours.
 */
const LZ4F_MAX_BLOCK_BYTES = 4 * 1024 * 1024;

/** Incremental frame decoder; a frame may arrive in any number of pieces. */
export class Lz4FrameDecoder {
  readonly #lease: HeapLease;
  readonly #heap: WasmHeap;
  readonly #output: OutputBudget;
  readonly #ctx: number;
  readonly #io: number;
  readonly #src: number;
  readonly #dst: number;
  #finished = false;

  constructor(options: Lz4DecompressOptions = {}) {
    this.#output = new OutputBudget(resolveOutputCap(options.maxOutputBytes), "LZ4 frame");
    const { lease, held } = HeapLease.open("lz4", (lease) => ({
      ctx: lease.native("an LZ4 frame decoder", "pal_lz4f_dctx_create", "LZ4F_freeDecompressionContext"),
      io: lease.malloc(8),
      src: lease.malloc(LIMITS.codec.streamChunkBytes),
      dst: lease.malloc(LZ4F_MAX_BLOCK_BYTES),
    }));
    this.#lease = lease;
    this.#heap = lease.heap;
    this.#ctx = held.ctx;
    this.#io = held.io;
    this.#src = held.src;
    this.#dst = held.dst;
  }

  push(input: Uint8Array): Uint8Array[] {
    if (this.#lease.released) throw new CodecError("INVALID_ARGUMENT", "LZ4 frame decoder already finished");
    const out: Uint8Array[] = [];
    const heap = this.#heap;
    const chunk = LIMITS.codec.streamChunkBytes;
    this.#lease.releaseOnThrow(() => {
      let offset = 0;
      while (offset < input.byteLength) {
        if (this.#finished)
          throw new CodecError("TRAILING_DATA", `${input.byteLength - offset} bytes follow the end of the LZ4 frame`);
        const n = Math.min(chunk, input.byteLength - offset);
        heap.u8.set(input.subarray(offset, offset + n), this.#src);
        let consumed = 0;
        // Drain: one input slice may produce many output chunks.
        for (;;) {
          heap.setU32(this.#io, LZ4F_MAX_BLOCK_BYTES);
          heap.setU32(this.#io + 4, n - consumed);
          const src = this.#src + consumed;
          const hint =
            heap.call("LZ4F_decompress", () => heap.fn.pal_lz4f_decompress!(this.#ctx, this.#dst, src, this.#io)) >>> 0;
          if (heap.fn.LZ4F_isError!(hint)) throw frameError(heap, hint, "LZ4 frame is corrupt");
          const written = heap.u32(this.#io);
          const read = heap.u32(this.#io + 4);
          consumed += read;
          if (written > 0) {
            this.#output.spend(written);
            out.push(heap.copyOut(this.#dst, written));
          }
          if (hint === 0) {
            this.#finished = true;
            if (consumed < n)
              throw new CodecError(
                "TRAILING_DATA",
                `${input.byteLength - offset - consumed} bytes follow the end of the LZ4 frame`,
              );
            break;
          }
          // Output room left over means LZ4F has used up this slice; a full
          // buffer may mean more is pending, so ask again, even with no input.
          if (consumed >= n && written < LZ4F_MAX_BLOCK_BYTES) break;
          if (read === 0 && written === 0) throw new CodecError("CORRUPT_INPUT", "LZ4 frame decoder made no progress");
        }
        offset += n;
      }
    });
    return out;
  }

  finish(): void {
    this.dispose();
    if (!this.#finished) throw new CodecError("TRUNCATED_INPUT", "LZ4 frame ended before its end mark");
  }

  dispose(): void {
    this.#lease.release();
  }
}

/**
 * A whole frame at once: through our own decoder (fast-frame.ts) when the
 * frame fits codec.lz4OneShotFrameBytes and the cap, else, and whenever ours
 * refuses it, through LZ4F as a stream, whose verdict and errors stand.
 */
export function lz4FrameDecompress(input: Uint8Array, options: Lz4DecompressOptions = {}): Uint8Array {
  return decompressFrame(input, resolveOutputCap(options.maxOutputBytes), NEW_BUFFER);
}

/**
 * lz4FrameDecompress into the caller's buffer: no output allocated on the
 * fast path. A frame that decodes to more than `output` holds (or than
 * `maxOutputBytes`) is OUTPUT_LIMIT. Returns the decoded size; on an error
 * `output` may hold part of the frame.
 *
 * @example
 * const n = lz4FrameDecompressInto(frame, new Uint8Array(declaredSize));
 */
export function lz4FrameDecompressInto(
  input: Uint8Array,
  output: Uint8Array,
  options: Lz4DecompressOptions = {},
): number {
  return decompressFrame(
    input,
    Math.min(resolveOutputCap(options.maxOutputBytes), output.byteLength),
    intoBuffer(output),
  );
}

function decompressFrame<T>(input: Uint8Array, cap: number, sink: OutputSink<T>): T {
  const fast = lz4FrameVariantBandit.run(
    (arm) => decodeFrameFast(input, cap, arm, sink),
    (r) => (r.ok ? r.size : 0),
    (r) => (r.ok && r.size > 0 ? [Math.log(input.byteLength / r.size), Math.log(r.size)] : 0),
  );
  if (fast.ok) return fast.bytes;
  try {
    return sink.fromBytes(streamWithLz4f(input, { maxOutputBytes: cap }));
  } catch (err) {
    // LZ4F decodes a frame that names a dictionary as if it had none; say why it failed.
    if (fast.code === FAST_FRAME_DICT_ID && err instanceof CodecError && err.code === "CORRUPT_INPUT") {
      const id = new DataView(input.buffer, input.byteOffset).getUint32(input[4]! & 0x08 ? 14 : 6, true);
      throw new CodecError(
        "CORRUPT_INPUT",
        `LZ4 frame needs dictionary ${id}, and LZ4 dictionaries are not supported (${err.message})`,
        { cause: err },
      );
    }
    throw err;
  }
}

function streamWithLz4f(input: Uint8Array, options: Lz4DecompressOptions): Uint8Array {
  const dec = new Lz4FrameDecoder(options);
  const parts = dec.push(input);
  dec.finish();
  return concatChunks(parts);
}
