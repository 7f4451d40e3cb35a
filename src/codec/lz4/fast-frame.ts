/**
 * One-shot LZ4 frame decoding through our own block decoder
 * (native/lz4_fast.c, pal_lz4f_fast_decode): the whole frame in the heap,
 * every block decoded in place after the ones before it, so linked blocks
 * need no dictionary copies. It answers only when it can vouch for the
 * answer: it accepts a frame only if LZ4F would accept it with the same
 * bytes, and refuses everything else (a damaged frame, a skippable or legacy
 * frame, trailing data, a dictionary id, output over the caps), in which case
 * the caller runs LZ4F, whose verdict and error names stand.
 *
 * @example
 * const fast = decodeFrameFast(frame, cap, arm);
 * const bytes = fast.ok ? fast.bytes : streamWithLz4f(frame);
 */
import { LIMITS } from "../../limits.ts";
import { withHeap } from "../runtime/heap.ts";
import { NEW_BUFFER, type OutputSink } from "../runtime/output-sink.ts";
import { LZ4_SLACK, LZ4_VARIANTS, LZ4_DEFAULT_VARIANT } from "./fast-block.ts";
import { VariantBandit } from "./variant-bandit.ts";

/** lz4_fast.c's PAL_LZ4F_* codes that the caller tells apart. */
const NEED_ROOM = 1;
export const FAST_FRAME_DICT_ID = -12;
/** Not from C: the output would pass the caller's cap or codec.lz4OneShotFrameBytes. */
export const FAST_FRAME_TOO_BIG = -100;

/** `bytes` is what the sink made of the output; `size`, how many bytes that was. */
export type FastFrameResult<T = Uint8Array> = { ok: true; bytes: T; size: number } | { ok: false; code: number };

/** Frames are a workload of their own (checksums, block headers), so they get their own bandit. */
export const lz4FrameVariantBandit = new VariantBandit({
  arms: LZ4_VARIANTS.length,
  defaultArm: LZ4_VARIANTS.indexOf(LZ4_DEFAULT_VARIANT),
});

/** `sink` takes the decoded bytes (by default, a fresh copy). */
export function decodeFrameFast(input: Uint8Array, cap: number, variant: number): FastFrameResult;
export function decodeFrameFast<T>(
  input: Uint8Array,
  cap: number,
  variant: number,
  sink: OutputSink<T>,
): FastFrameResult<T>;
export function decodeFrameFast(
  input: Uint8Array,
  cap: number,
  variant: number,
  sink: OutputSink<unknown> = NEW_BUFFER,
): FastFrameResult<unknown> {
  const limit = Math.min(cap, LIMITS.codec.lz4OneShotFrameBytes);
  // A frame decodes to about its own size or more: one bigger than the one-shot limit streams
  // through LZ4F without first being copied whole into the heap.
  if (input.byteLength > limit) return { ok: false, code: FAST_FRAME_TOO_BIG };
  return withHeap("lz4", (heap): FastFrameResult<unknown> => {
    const io = heap.malloc(16);
    const src = heap.malloc(input.byteLength + LZ4_SLACK);
    let dst = 0;
    try {
      heap.u8.set(input, src);
      const info = heap.call("pal_lz4f_fast_info", () => heap.fn.pal_lz4f_fast_info!(src, input.byteLength, io));
      if (info < 0) return { ok: false, code: info };
      const declared = heap.u32(io) !== 0;
      const maxBlock = heap.u32(io + 12);
      // Content sizes past 2^32 are over any cap; the low word alone would lie.
      if (declared && (heap.u32(io + 8) !== 0 || heap.u32(io + 4) > limit))
        return { ok: false, code: FAST_FRAME_TOO_BIG };
      // Without a declared size, start at a guess and let the decoder ask for more.
      let capacity = declared ? heap.u32(io + 4) : Math.min(limit, 4 * input.byteLength) + maxBlock;
      dst = heap.malloc(capacity + LZ4_SLACK);
      for (let i = 0; i < 3; i++) heap.setU32(io + 4 * i, 0);
      for (;;) {
        const r = heap.call("pal_lz4f_fast_decode", () =>
          heap.fn.pal_lz4f_fast_decode!(src, input.byteLength, dst, capacity, io, variant),
        );
        const written = heap.u32(io + 4);
        if (r === NEED_ROOM) {
          // One block past the cap may still be an error LZ4F should name; more than that is over it.
          const want = Math.max(heap.u32(io + 8), 2 * capacity);
          if (written > limit) return { ok: false, code: FAST_FRAME_TOO_BIG };
          capacity = Math.min(want, limit + maxBlock);
          if (capacity < heap.u32(io + 8)) return { ok: false, code: FAST_FRAME_TOO_BIG };
          const bigger = heap.malloc(capacity + LZ4_SLACK);
          heap.u8.copyWithin(bigger, dst, dst + written);
          heap.free(dst);
          dst = bigger;
          continue;
        }
        if (r < 0) return { ok: false, code: r };
        if (written > limit) return { ok: false, code: FAST_FRAME_TOO_BIG };
        return { ok: true, bytes: sink.fromHeap(heap.u8, dst, written), size: written };
      }
    } finally {
      heap.free(dst);
      heap.free(src);
      heap.free(io);
    }
  });
}
