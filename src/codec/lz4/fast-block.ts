/**
 * Our own LZ4 block decoder (native/lz4_fast.c) and its copy variants: which
 * exist, which one runs by default, and the bandit that picks one per call
 * where clocks work. Buffers handed to it carry LIMITS.codec.lz4DecodeSlackBytes
 * of slack after the input and after the output capacity (its wild copies
 * may touch them). It is stricter than upstream's LZ4_decompress_safe only on
 * input no compressor writes, so callers treat its errors as "ask the
 * reference", never as the answer.
 *
 * @example
 * const n = decodeBlockVariant(heap, src, srcLen, dst, 0, size, lz4VariantBandit.choose());
 */
import { LIMITS } from "../../limits.ts";
import type { WasmHeap } from "../runtime/heap.ts";
import { VariantBandit, type ArmStats } from "./variant-bandit.ts";

/** In lz4_fast.c's order (its PAL_LZ4_* variant numbers). */
export const LZ4_VARIANTS = [
  /** 8-byte word copies; matches closer than 8 bytes byte by byte. */
  "wild8",
  /** 16-byte vector copies; matches closer than 16 bytes byte by byte. */
  "wild16",
  /** 16-byte vector copies; matches closer than 16 bytes by an i8x16.swizzle repeat pattern. */
  "wild16-swizzle",
] as const;
export type Lz4Variant = (typeof LZ4_VARIANTS)[number];

/**
 * The fastest fixed variant in Node on real pages (html, css, js, LZ4 fast
 * and HC 9; see src/tools/bench/lz4-variants.ts), and so what runs wherever the
 * bandit cannot time anything, as in workerd.
 */
export const LZ4_DEFAULT_VARIANT: Lz4Variant = "wild16-swizzle";

/** The hot tier's per-call choice; module-wide, so it learns across calls. */
export const lz4VariantBandit = new VariantBandit({
  arms: LZ4_VARIANTS.length,
  defaultArm: LZ4_VARIANTS.indexOf(LZ4_DEFAULT_VARIANT),
});

export interface Lz4VariantChoice {
  /**
   * What the bandit would run next without sampling: its default until something is timed, then the arm with the lowest
   * mean.
   */
  current: Lz4Variant;
  arms: (Omit<ArmStats, "arm"> & { variant: Lz4Variant })[];
}

export function lz4VariantChoice(): Lz4VariantChoice {
  const arms = lz4VariantBandit.stats().map(({ arm, ...rest }) => ({ variant: LZ4_VARIANTS[arm]!, ...rest }));
  return { current: LZ4_VARIANTS[lz4VariantBandit.bestArm()]!, arms };
}

export function lz4VariantIndex(variant: Lz4Variant): number {
  const i = LZ4_VARIANTS.indexOf(variant);
  if (i < 0) throw new RangeError(`unknown LZ4 decoder variant ${String(variant)}`);
  return i;
}

export const LZ4_SLACK = LIMITS.codec.lz4DecodeSlackBytes;

/**
 * Decodes src[0, srcLen) to dst + offset, at most cap bytes, with
 * dst[0, offset) as history. Returns the decoded size, or a negative code
 * when the fast decoder refuses the block.
 */
export function decodeBlockVariant(
  heap: WasmHeap,
  src: number,
  srcLen: number,
  dst: number,
  offset: number,
  cap: number,
  variant: number,
): number {
  return heap.call("pal_lz4_decode_block", () => heap.fn.pal_lz4_decode_block!(src, srcLen, dst, offset, cap, variant));
}
