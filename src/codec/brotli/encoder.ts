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
import { coderStream } from "../runtime/coder-stream.ts";
import { concatChunks } from "../runtime/stream-io.ts";
import { checkDictionaryInput } from "./dictionary.ts";
import { resolveBrotliOptions, type BrotliCompressOptions } from "./options.ts";
import type { ReducedDictionaryTrace } from "./reduced-dictionary.ts";
import { openBrotliStream, type BrotliStreamState } from "./stream-state.ts";

// BrotliEncoderParameter and BrotliEncoderOperation values from encode.h.
const Param = { Mode: 0, Quality: 1, Lgwin: 2, SizeHint: 5, LargeWindow: 6 } as const;
const Op = { Process: 0, Finish: 2 } as const;
type Op = (typeof Op)[keyof typeof Op];

export class BrotliEncoder {
  readonly #s: BrotliStreamState;
  readonly #trace: ReducedDictionaryTrace | undefined;

  /** `trace` is for traceDictionaryCandidates (reduced-dictionary.ts) only. */
  constructor(options: BrotliCompressOptions = {}, trace?: ReducedDictionaryTrace) {
    const opts = resolveBrotliOptions(options);
    this.#trace = trace;
    const reduced = options.reducedDictionary;
    this.#s = openBrotliStream(
      {
        module: "brotli",
        what: "a brotli encoder",
        create: "BrotliEncoderCreateInstance",
        destroy: "BrotliEncoderDestroyInstance",
        prepared: true,
        configure(heap, state, dict, lease) {
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
          if (reduced) {
            // The state keeps a pointer to the prepared structure: prepared in this heap, freed only by its dispose().
            const handle = reduced.handleIn(heap);
            if (
              !heap.call("BrotliEncoderAttachReducedDictionary", () =>
                heap.fn.BrotliEncoderAttachReducedDictionary!(state, handle),
              )
            ) {
              throw new CodecError("OUT_OF_MEMORY", "brotli encoder could not attach the reduced dictionary");
            }
            trace?.attach(lease, state);
          }
          if (!dict) return;
          const prepared = dict.preparedIn(heap);
          if (
            !heap.call("BrotliEncoderAttachPreparedDictionary", () =>
              heap.fn.BrotliEncoderAttachPreparedDictionary!(state, prepared),
            )
          ) {
            throw new CodecError("BAD_DICTIONARY", "brotli encoder refused the dictionary");
          }
        },
      },
      options.dictionary,
    );
  }

  /** Feeds input; returns whatever compressed output is ready. */
  push(input: Uint8Array): Uint8Array[] {
    this.#assertOpen();
    return this.#s.lease.releaseOnThrow(() => {
      const out: Uint8Array[] = [];
      for (let offset = 0; offset < input.byteLength;) {
        offset += this.#s.buffers.loadInput(input, offset);
        this.#drive(Op.Process, out);
      }
      return out;
    });
  }

  /** Ends the stream and returns the remaining output. The encoder is disposed. */
  finish(): Uint8Array[] {
    this.#assertOpen();
    const out: Uint8Array[] = [];
    try {
      this.#s.buffers.clearInput();
      this.#drive(Op.Finish, out);
      this.#trace?.collect(this.#s.heap, this.#s.state);
    } finally {
      this.dispose();
    }
    return out;
  }

  dispose(): void {
    this.#s.lease.release();
  }

  #drive(op: Op, out: Uint8Array[]): void {
    const { heap, buffers: b, state } = this.#s;
    const { fn } = heap;
    for (;;) {
      b.resetOutput();
      const ok = heap.call("BrotliEncoderCompressStream", () =>
        fn.BrotliEncoderCompressStream!(state, op, b.io, b.io + 4, b.io + 8, b.io + 12, 0),
      );
      // Built with BROTLI_ENCODER_CLEANUP_ON_OOM (see native/build.sh), the encoder
      // returns false when malloc fails instead of exiting; our calls never
      // misuse the API, so that is the only way to get here.
      if (!ok)
        throw new CodecError(
          "OUT_OF_MEMORY",
          "brotli encoder ran out of wasm memory (window or quality too big for the heap)",
        );
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
    if (this.#s.lease.released) throw new CodecError("INVALID_ARGUMENT", "brotli encoder already finished");
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
  return coderStream(() => new BrotliEncoder(options));
}
