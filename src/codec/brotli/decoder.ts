/**
 * Streaming brotli decoder over the reference C decoder, with a hard cap on
 * output so a decompression bomb is refused rather than expanded. Uses the
 * decoder-only module when a runtime installed it, so read paths need not
 * load the encoder.
 *
 * @example
 * const text = brotliDecompress(body, { maxOutputBytes: 32 << 20 });
 * response.body.pipeThrough(brotliDecompressStream({ maxOutputBytes }));
 */
import { CodecError } from "../errors.ts";
import { LIMITS } from "../../limits.ts";
import { resolveOutputCap, type OutputCapOptions } from "../output-cap.ts";
import { heapOf, type WasmHeap } from "../runtime/heap.ts";
import { hasCodecModule } from "../runtime/registry.ts";
import { StreamBuffers, concatChunks } from "../runtime/stream-io.ts";
import { borrowDictionary, checkDictionaryInput, type BrotliDictionary, type DictionaryInput } from "./dictionary.ts";

export interface BrotliDecompressOptions extends OutputCapOptions {
  /** The raw prefix dictionary the stream was encoded against. */
  dictionary?: DictionaryInput;
  /** Accept large-window streams (not valid `br` for HTTP). */
  largeWindow?: boolean;
}

// BrotliDecoderResult and BrotliDecoderParameter values from decode.h.
const Result = { Error: 0, Success: 1, NeedsMoreInput: 2, NeedsMoreOutput: 3 } as const;
const Param = { LargeWindow: 1 } as const;
const BROTLI_SHARED_DICTIONARY_RAW = 0;

function decoderModule() {
  return hasCodecModule("brotli-decoder") ? "brotli-decoder" : "brotli";
}

export class BrotliDecoder {
  readonly #heap: WasmHeap;
  readonly #buffers: StreamBuffers;
  readonly #dict: { dict?: BrotliDictionary; owned: boolean };
  readonly #cap: number;
  #state: number;
  #total = 0;
  #finished = false;
  #disposed = false;

  constructor(options: BrotliDecompressOptions = {}) {
    this.#cap = resolveOutputCap(options.maxOutputBytes);
    this.#heap = heapOf(decoderModule());
    const heap = this.#heap;
    heap.acquire();
    let state = 0;
    let buffers: StreamBuffers | undefined;
    let dict: { dict?: BrotliDictionary; owned: boolean } = { owned: false };
    try {
      state = heap.call("BrotliDecoderCreateInstance", () => heap.fn.BrotliDecoderCreateInstance!(0, 0, 0)) >>> 0;
      if (state === 0) throw new CodecError("OUT_OF_MEMORY", "could not create a brotli decoder");
      if (options.largeWindow) heap.fn.BrotliDecoderSetParameter!(state, Param.LargeWindow, 1);
      dict = borrowDictionary(options.dictionary);
      if (dict.dict) {
        const data = dict.dict.dataIn(heap);
        const size = dict.dict.byteLength;
        if (!heap.call("BrotliDecoderAttachDictionary", () => heap.fn.BrotliDecoderAttachDictionary!(state, BROTLI_SHARED_DICTIONARY_RAW, size, data))) {
          throw new CodecError("BAD_DICTIONARY", "brotli decoder refused the dictionary");
        }
      }
      buffers = new StreamBuffers(heap, LIMITS.codec.streamChunkBytes, LIMITS.codec.streamChunkBytes);
    } catch (err) {
      if (state !== 0 && !heap.broken) heap.fn.BrotliDecoderDestroyInstance!(state);
      buffers?.free();
      if (dict.owned) dict.dict?.dispose();
      heap.release();
      throw err;
    }
    this.#state = state;
    this.#buffers = buffers;
    this.#dict = dict;
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** Feeds compressed bytes; returns the decoded bytes they complete. */
  push(input: Uint8Array): Uint8Array[] {
    if (this.#disposed) throw new CodecError("INVALID_ARGUMENT", "brotli decoder already finished");
    const out: Uint8Array[] = [];
    try {
      if (this.#finished) {
        if (input.byteLength > 0) throw new CodecError("TRAILING_DATA", `${input.byteLength} bytes follow the end of the brotli stream`);
        return out;
      }
      let offset = 0;
      const b = this.#buffers;
      b.clearInput();
      for (;;) {
        if (b.availIn === 0 && offset < input.byteLength) offset += b.loadInput(input, offset);
        const result = this.#step(out);
        if (result === Result.Success) {
          this.#finished = true;
          const left = b.availIn + (input.byteLength - offset);
          if (left > 0) throw new CodecError("TRAILING_DATA", `${left} bytes follow the end of the brotli stream`);
          return out;
        }
        if (result === Result.NeedsMoreInput && offset >= input.byteLength) return out;
      }
    } catch (err) {
      this.dispose();
      throw err;
    }
  }

  /** Asserts the stream ended cleanly, then frees the decoder. */
  finish(): void {
    const complete = this.#finished;
    this.dispose();
    if (!complete) throw new CodecError("TRUNCATED_INPUT", "brotli stream ended before its last block");
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (!this.#heap.broken) this.#heap.fn.BrotliDecoderDestroyInstance!(this.#state);
    this.#buffers.free();
    if (this.#dict.owned) this.#dict.dict?.dispose();
    this.#heap.release();
  }

  #step(out: Uint8Array[]): number {
    const heap = this.#heap;
    const b = this.#buffers;
    const state = this.#state;
    b.resetOutput();
    const result = heap.call("BrotliDecoderDecompressStream", () =>
      heap.fn.BrotliDecoderDecompressStream!(state, b.io, b.io + 4, b.io + 8, b.io + 12, 0),
    );
    const produced = b.producedBytes();
    if (produced > 0) {
      if (this.#total + produced > this.#cap) {
        throw new CodecError("OUTPUT_LIMIT", `brotli output exceeds the ${this.#cap}-byte cap`);
      }
      this.#total += produced;
      out.push(b.takeOutput()!);
    }
    if (result === Result.Error) throw this.#error();
    return result;
  }

  #error(): CodecError {
    const heap = this.#heap;
    const code = heap.fn.BrotliDecoderGetErrorCode!(this.#state) | 0;
    const namePtr = heap.fn.BrotliDecoderErrorString!(code) >>> 0;
    const bytes = heap.u8;
    let end = namePtr;
    while (end < bytes.length && bytes[end] !== 0) end++;
    const name = new TextDecoder().decode(bytes.subarray(namePtr, end));
    // -21..-30 are allocation failures; everything else is a malformed stream.
    // That includes a stream decoded without the raw prefix dictionary it was
    // made with: its references past the window land in brotli's built-in
    // dictionary instead and fail, typically as -12 (FORMAT_DICTIONARY); a
    // copy past the end of a supplied dictionary is -18 (COMPOUND_DICTIONARY).
    // -19 (DICTIONARY_NOT_SET) is not about our dictionaries: it means the
    // built-in one was left out of the build, which ours never does.
    if (code <= -21 && code >= -30) return new CodecError("OUT_OF_MEMORY", `brotli decoder: ${name}`);
    return new CodecError("CORRUPT_INPUT", `brotli stream is corrupt (${name}, code ${code})`);
  }
}

/** Decompresses a whole buffer, refusing anything that decodes past the cap. */
export function brotliDecompress(input: Uint8Array, options: BrotliDecompressOptions = {}): Uint8Array {
  const dec = new BrotliDecoder(options);
  const parts = dec.push(input);
  dec.finish();
  return concatChunks(parts);
}

/**
 * A TransformStream that decodes brotli as it flows, for streaming large
 * revisions. Bad options throw here, not at the first chunk; the decoder
 * itself (and its heap) is taken only when data arrives.
 */
export function brotliDecompressStream(options: BrotliDecompressOptions = {}): TransformStream<Uint8Array, Uint8Array> {
  resolveOutputCap(options.maxOutputBytes);
  checkDictionaryInput(options.dictionary);
  let dec: BrotliDecoder | undefined;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      dec ??= new BrotliDecoder(options);
      for (const part of dec.push(chunk)) controller.enqueue(part);
    },
    flush() {
      dec ??= new BrotliDecoder(options);
      dec.finish();
    },
    cancel() {
      dec?.dispose();
    },
  } as Transformer<Uint8Array, Uint8Array>);
}
