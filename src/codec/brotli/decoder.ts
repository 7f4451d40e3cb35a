/**
 * Streaming brotli decoder over the reference C decoder, with a hard cap on
 * output so a decompression bomb is refused rather than expanded.
 *
 * @example
 * const text = brotliDecompress(body, { maxOutputBytes: 32 << 20 });
 * response.body.pipeThrough(brotliDecompressStream({ maxOutputBytes }));
 */
import { CodecError } from "../errors.ts";
import { OutputBudget, resolveOutputCap, type OutputCapOptions } from "../output-cap.ts";
import { coderStream } from "../runtime/coder-stream.ts";
import { NEW_BUFFER, intoBuffer, type OutputSink } from "../runtime/output-sink.ts";
import { AVAIL_IN, AVAIL_OUT, NEXT_IN, NEXT_OUT, concatChunks } from "../runtime/stream-io.ts";
import { LIMITS } from "../../limits.ts";
import { checkDictionaryInput, type DictionaryInput } from "./dictionary.ts";
import { openBrotliStream, type BrotliStreamState } from "./stream-state.ts";

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

export class BrotliDecoder {
  readonly #s: BrotliStreamState;
  readonly #output: OutputBudget;
  #finished = false;

  constructor(options: BrotliDecompressOptions = {}) {
    this.#output = new OutputBudget(resolveOutputCap(options.maxOutputBytes), "brotli");
    this.#s = openBrotliStream(
      {
        module: "brotli",
        what: "a brotli decoder",
        create: "BrotliDecoderCreateInstance",
        destroy: "BrotliDecoderDestroyInstance",
        prepared: false,
        configure(heap, state, dict) {
          if (options.largeWindow) heap.fn.BrotliDecoderSetParameter!(state, Param.LargeWindow, 1);
          if (!dict) return;
          const data = dict.dataIn(heap);
          const size = dict.byteLength;
          if (
            !heap.call("BrotliDecoderAttachDictionary", () =>
              heap.fn.BrotliDecoderAttachDictionary!(state, BROTLI_SHARED_DICTIONARY_RAW, size, data),
            )
          ) {
            throw new CodecError("BAD_DICTIONARY", "brotli decoder refused the dictionary");
          }
        },
      },
      options.dictionary,
    );
  }

  get finished(): boolean {
    return this.#finished;
  }

  /**
   * Feeds compressed bytes; returns the decoded bytes they complete. With
   * `enough`, it returns as soon as that many bytes are out (and one staging
   * chunk at most past them), leaving the rest of the input unread.
   */
  push(input: Uint8Array, enough = Infinity): Uint8Array[] {
    if (this.#s.lease.released) throw new CodecError("INVALID_ARGUMENT", "brotli decoder already finished");
    return this.#s.lease.releaseOnThrow(() => {
      const out: Uint8Array[] = [];
      if (this.#finished) {
        if (input.byteLength > 0)
          throw new CodecError("TRAILING_DATA", `${input.byteLength} bytes follow the end of the brotli stream`);
        return out;
      }
      let offset = 0;
      let produced = 0;
      const b = this.#s.buffers;
      b.clearInput();
      for (;;) {
        if (b.availIn === 0 && offset < input.byteLength) offset += b.loadInput(input, offset);
        const chunks = out.length;
        const result = this.#step(out);
        if (out.length > chunks) produced += out.at(-1)!.byteLength;
        if (result === Result.Success) {
          this.#finished = true;
          const left = b.availIn + (input.byteLength - offset);
          if (left > 0) throw new CodecError("TRAILING_DATA", `${left} bytes follow the end of the brotli stream`);
          return out;
        }
        if (result === Result.NeedsMoreInput && offset >= input.byteLength) return out;
        if (produced >= enough) return out;
      }
    });
  }

  /**
   * One call for a stream whose decoded size is known (see
   * brotliDecompressKnownSize): the whole input and an output buffer of
   * exactly `outputBytes` in the heap, so nothing passes through the staging
   * buffers and no chunks are joined. Returns what was decoded, which is
   * fewer bytes only if the stream ended sooner.
   */
  decodeKnownSize<T>(input: Uint8Array, outputBytes: number, whole: boolean, sink: OutputSink<T>): T {
    const { heap, state, lease, buffers: b } = this.#s;
    return lease.releaseOnThrow(() => {
      const src = lease.malloc(input.byteLength);
      heap.u8.set(input, src);
      const dst = lease.malloc(outputBytes);
      heap.setU32(b.io + AVAIL_IN, input.byteLength);
      heap.setU32(b.io + NEXT_IN, src);
      heap.setU32(b.io + AVAIL_OUT, outputBytes);
      heap.setU32(b.io + NEXT_OUT, dst);
      const result = heap.call("BrotliDecoderDecompressStream", () =>
        heap.fn.BrotliDecoderDecompressStream!(
          state,
          b.io + AVAIL_IN,
          b.io + NEXT_IN,
          b.io + AVAIL_OUT,
          b.io + NEXT_OUT,
          0,
        ),
      );
      if (result === Result.Error) throw this.#error();
      const produced = outputBytes - heap.u32(b.io + AVAIL_OUT);
      if (result === Result.Success) {
        this.#finished = true;
        const left = heap.u32(b.io + AVAIL_IN);
        if (left > 0) throw new CodecError("TRAILING_DATA", `${left} bytes follow the end of the brotli stream`);
      } else if (result === Result.NeedsMoreOutput) {
        if (whole)
          throw new CodecError("OUTPUT_LIMIT", `brotli stream decodes past the ${outputBytes} bytes it should hold`);
      } else if (whole) {
        throw new CodecError("TRUNCATED_INPUT", "brotli stream ended before its last block");
      }
      return sink.fromHeap(heap.u8, dst, produced);
    });
  }

  /** Asserts the stream ended cleanly, then frees the decoder. */
  finish(): void {
    this.dispose();
    if (!this.#finished) throw new CodecError("TRUNCATED_INPUT", "brotli stream ended before its last block");
  }

  dispose(): void {
    this.#s.lease.release();
  }

  #step(out: Uint8Array[]): number {
    const { heap, buffers: b, state } = this.#s;
    b.resetOutput();
    const result = heap.call("BrotliDecoderDecompressStream", () =>
      heap.fn.BrotliDecoderDecompressStream!(state, b.io, b.io + 4, b.io + 8, b.io + 12, 0),
    );
    const produced = b.producedBytes();
    if (produced > 0) {
      this.#output.spend(produced);
      out.push(b.takeOutput()!);
    }
    if (result === Result.Error) throw this.#error();
    return result;
  }

  #error(): CodecError {
    const { heap, state } = this.#s;
    const code = heap.fn.BrotliDecoderGetErrorCode!(state) | 0;
    const name = heap.cString(heap.fn.BrotliDecoderErrorString!(code));
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
 * Decodes a stream whose decoded size is known, or only its first
 * `outputBytes` bytes (`whole: false`: brotli stops once they are out, so
 * nothing past them is decoded). Up to codec.knownSizeDecodeBytes this is
 * one call into one buffer of that size; bigger outputs stream through the
 * staging buffers, so the heap, which never shrinks, is not grown by them.
 * With `whole`, a stream that decodes to more is OUTPUT_LIMIT and one cut
 * short TRUNCATED_INPUT; one that ends (or, without `whole`, runs out of
 * input) before `outputBytes` is returned short, for the caller to judge.
 */
export function brotliDecompressKnownSize(
  input: Uint8Array,
  outputBytes: number,
  options: Omit<BrotliDecompressOptions, "maxOutputBytes"> & { whole?: boolean } = {},
): Uint8Array {
  return decodeKnown(input, outputBytes, options.whole ?? true, options, NEW_BUFFER);
}

/**
 * Decodes a whole stream into the caller's buffer, which must have room for
 * all of it: no output is allocated, and up to codec.knownSizeDecodeBytes
 * nothing passes through the staging buffers either. Returns the decoded
 * size. A stream that decodes to more than `output` holds is OUTPUT_LIMIT; a
 * stream cut short, TRUNCATED_INPUT. On an error `output` may hold part of
 * the stream.
 *
 * @example
 * const page = new Uint8Array(storedSize);
 * const n = brotliDecompressInto(blob, page, { dictionary: anchor });
 */
export function brotliDecompressInto(
  input: Uint8Array,
  output: Uint8Array,
  options: Omit<BrotliDecompressOptions, "maxOutputBytes"> = {},
): number {
  return decodeKnown(input, output.byteLength, true, options, intoBuffer(output));
}

/** brotliDecompressKnownSize's work, its output going to `sink`. */
function decodeKnown<T>(
  input: Uint8Array,
  outputBytes: number,
  whole: boolean,
  options: Omit<BrotliDecompressOptions, "maxOutputBytes">,
  sink: OutputSink<T>,
): T {
  resolveOutputCap(outputBytes);
  // A prefix may overshoot by the one staging chunk that completes it.
  const cap = whole ? outputBytes : Math.min(outputBytes + LIMITS.codec.streamChunkBytes, LIMITS.codec.maxOutputBytes);
  const dec = new BrotliDecoder({ ...options, maxOutputBytes: cap });
  try {
    if (outputBytes > 0 && outputBytes <= LIMITS.codec.knownSizeDecodeBytes)
      return dec.decodeKnownSize(input, outputBytes, whole, sink);
    return sink.fromBytes(prefixByStreaming(dec, input, outputBytes, whole));
  } finally {
    dec.dispose();
  }
}

/** Feeds the stream in slices until `outputBytes` are out (or to its end, with `whole`). */
function prefixByStreaming(dec: BrotliDecoder, input: Uint8Array, outputBytes: number, whole: boolean): Uint8Array {
  const out: Uint8Array[] = [];
  let produced = 0;
  const slice = 16 * 1024;
  // To the end even when nothing is left to produce: an empty stream must still be read whole.
  for (let off = 0; off < input.byteLength && (whole || produced < outputBytes); off += slice) {
    for (const chunk of dec.push(input.subarray(off, off + slice), whole ? Infinity : outputBytes - produced)) {
      out.push(chunk);
      produced += chunk.byteLength;
    }
  }
  if (whole) dec.finish();
  const bytes = concatChunks(out);
  return bytes.byteLength > outputBytes ? bytes.subarray(0, outputBytes) : bytes;
}

/**
 * A TransformStream that decodes brotli as it flows, for streaming large
 * revisions. Bad options throw here, not at the first chunk; the decoder
 * itself (and its heap) is taken only when data arrives (see coderStream).
 */
export function brotliDecompressStream(options: BrotliDecompressOptions = {}): TransformStream<Uint8Array, Uint8Array> {
  resolveOutputCap(options.maxOutputBytes);
  checkDictionaryInput(options.dictionary);
  return coderStream(() => new BrotliDecoder(options));
}
