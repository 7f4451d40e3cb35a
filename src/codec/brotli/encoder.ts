/**
 * Streaming brotli encoder over the reference C encoder. Input passes
 * through a fixed staging buffer, so heap use depends on the settings
 * (window, quality), not on how much is compressed.
 *
 * @example
 * const enc = new BrotliEncoder({ quality: 9, lgwin: 24 });
 * const parts = [...enc.push(a), ...enc.push(b), ...enc.finish()];
 */
import { CodecError } from "../errors.ts";
import { LIMITS } from "../../limits.ts";
import { heapOf, type WasmHeap } from "../runtime/heap.ts";
import { StreamBuffers, concatChunks } from "../runtime/stream-io.ts";
import { borrowDictionary, checkDictionaryInput, type BrotliDictionary } from "./dictionary.ts";
import { resolveBrotliOptions, type BrotliCompressOptions } from "./options.ts";

// BrotliEncoderParameter and BrotliEncoderOperation values from encode.h.
const Param = { Mode: 0, Quality: 1, Lgwin: 2, SizeHint: 5, LargeWindow: 6 } as const;
const Op = { Process: 0, Finish: 2 } as const;
type Op = (typeof Op)[keyof typeof Op];

export class BrotliEncoder {
  readonly #heap: WasmHeap;
  readonly #buffers: StreamBuffers;
  readonly #dict: { dict?: BrotliDictionary; owned: boolean };
  #state: number;
  #done = false;

  constructor(options: BrotliCompressOptions = {}) {
    const opts = resolveBrotliOptions(options);
    this.#heap = heapOf("brotli");
    this.#heap.acquire();
    const heap = this.#heap;
    let state = 0;
    let buffers: StreamBuffers | undefined;
    let dict: { dict?: BrotliDictionary; owned: boolean } = { owned: false };
    try {
      state = heap.call("BrotliEncoderCreateInstance", () => heap.fn.BrotliEncoderCreateInstance!(0, 0, 0)) >>> 0;
      if (state === 0) throw new CodecError("OUT_OF_MEMORY", "could not create a brotli encoder");
      const set = (param: number, value: number) => {
        if (!heap.fn.BrotliEncoderSetParameter!(state, param, value)) {
          throw new CodecError("INVALID_ARGUMENT", `brotli encoder rejected parameter ${param}=${value}`);
        }
      };
      set(Param.Quality, opts.quality);
      set(Param.Lgwin, opts.lgwin);
      set(Param.Mode, opts.mode);
      if (opts.largeWindow) set(Param.LargeWindow, 1);
      if (opts.sizeHint > 0) set(Param.SizeHint, opts.sizeHint);
      dict = borrowDictionary(options.dictionary);
      if (dict.dict) {
        const prepared = dict.dict.preparedIn(heap);
        if (!heap.call("BrotliEncoderAttachPreparedDictionary", () => heap.fn.BrotliEncoderAttachPreparedDictionary!(state, prepared))) {
          throw new CodecError("BAD_DICTIONARY", "brotli encoder refused the dictionary");
        }
      }
      buffers = new StreamBuffers(heap, LIMITS.codec.streamChunkBytes, LIMITS.codec.streamChunkBytes);
    } catch (err) {
      if (state !== 0 && !heap.broken) heap.fn.BrotliEncoderDestroyInstance!(state);
      buffers?.free();
      if (dict.owned) dict.dict?.dispose();
      heap.release();
      throw err;
    }
    this.#state = state;
    this.#buffers = buffers;
    this.#dict = dict;
  }

  /** Feeds input; returns whatever compressed output is ready. */
  push(input: Uint8Array): Uint8Array[] {
    this.#assertOpen();
    const out: Uint8Array[] = [];
    try {
      for (let offset = 0; offset < input.byteLength; ) {
        offset += this.#buffers.loadInput(input, offset);
        this.#drive(Op.Process, out);
      }
    } catch (err) {
      this.dispose();
      throw err;
    }
    return out;
  }

  /** Ends the stream and returns the remaining output. The encoder is disposed. */
  finish(): Uint8Array[] {
    this.#assertOpen();
    const out: Uint8Array[] = [];
    try {
      this.#buffers.clearInput();
      this.#drive(Op.Finish, out);
    } finally {
      this.dispose();
    }
    return out;
  }

  dispose(): void {
    if (this.#done) return;
    this.#done = true;
    if (!this.#heap.broken) this.#heap.fn.BrotliEncoderDestroyInstance!(this.#state);
    this.#buffers.free();
    if (this.#dict.owned) this.#dict.dict?.dispose();
    this.#heap.release();
  }

  #drive(op: Op, out: Uint8Array[]): void {
    const { fn } = this.#heap;
    const b = this.#buffers;
    const state = this.#state;
    for (;;) {
      b.resetOutput();
      const ok = this.#heap.call("BrotliEncoderCompressStream", () =>
        fn.BrotliEncoderCompressStream!(state, op, b.io, b.io + 4, b.io + 8, b.io + 12, 0),
      );
      // Built with BROTLI_ENCODER_CLEANUP_ON_OOM (see native/build.sh), the encoder
      // returns false when malloc fails instead of exiting; our calls never
      // misuse the API, so that is the only way to get here.
      if (!ok) throw new CodecError("OUT_OF_MEMORY", "brotli encoder ran out of wasm memory (window or quality too big for the heap)");
      const chunk = b.takeOutput();
      if (chunk) out.push(chunk);
      const more = fn.BrotliEncoderHasMoreOutput!(state) !== 0;
      if (op === Op.Finish) {
        if (fn.BrotliEncoderIsFinished!(state) && !more) return;
      } else if (b.availIn === 0 && !more) {
        return;
      }
    }
  }

  #assertOpen(): void {
    if (this.#done) throw new CodecError("INVALID_ARGUMENT", "brotli encoder already finished");
  }
}

/** Compresses a whole buffer. */
export function brotliCompress(input: Uint8Array, options: BrotliCompressOptions = {}): Uint8Array {
  if (input.byteLength > LIMITS.codec.maxOneShotInputBytes) {
    throw new CodecError(
      "INPUT_TOO_LARGE",
      `${input.byteLength} bytes exceeds codec.maxOneShotInputBytes (${LIMITS.codec.maxOneShotInputBytes}); use the streaming encoder`,
    );
  }
  const enc = new BrotliEncoder({ sizeHint: input.byteLength, ...options });
  const parts = enc.push(input);
  parts.push(...enc.finish());
  return concatChunks(parts);
}

/**
 * A TransformStream that brotli-compresses what flows through it. Bad options
 * throw here, not at the first chunk; the encoder itself (and its heap) is
 * taken only when data arrives or the stream ends.
 */
export function brotliCompressStream(options: BrotliCompressOptions = {}): TransformStream<Uint8Array, Uint8Array> {
  resolveBrotliOptions(options);
  checkDictionaryInput(options.dictionary);
  let enc: BrotliEncoder | undefined;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      enc ??= new BrotliEncoder(options);
      for (const part of enc.push(chunk)) controller.enqueue(part);
    },
    flush(controller) {
      enc ??= new BrotliEncoder(options);
      for (const part of enc.finish()) controller.enqueue(part);
    },
    cancel() {
      enc?.dispose();
    },
  } as Transformer<Uint8Array, Uint8Array>);
}
