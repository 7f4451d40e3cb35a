/**
 * LZ4 block decoding speed per decoder, through the very glue the archive
 * uses (lz4Decompress: size check, copy in, decode, copy out): each fixed
 * variant of our decoder (src/codec/native/lz4_fast.c), the bandit's
 * per-call choice as lz4Decompress runs it, and upstream's
 * LZ4_decompress_safe ("reference"). Passes alternate (measureAll), so load
 * from other processes falls on every row alike.
 *
 * @example
 * const blocks = files.map((f) => lz4Compress(f, { level: 9 }));
 * const { rows, bandit_choice, best_fixed } = benchLz4Variants(blocks, DEFAULT_POLICY);
 */
import {
  LZ4_VARIANTS,
  lz4Decompress,
  lz4DecompressWith,
  lz4StoredSize,
  lz4VariantChoice,
  type Lz4Variant,
} from "../../codec/index.ts";
import { mbPerSecond, measureAll, round, type TimingPolicy } from "./harness/index.ts";

export type Lz4Decoder = Lz4Variant | "bandit" | "reference";

export interface Lz4VariantRow {
  variant: Lz4Decoder;
  /** Megabytes of decoded output per second, glue included. */
  mb_per_s: number;
  /** This row's speed over the reference's, from the same passes. */
  ratio_vs_reference: number;
}

export interface Lz4VariantReport {
  rows: Lz4VariantRow[];
  /** What the bandit runs after these passes (its lowest mean; its default if it timed nothing). */
  bandit_choice: Lz4Variant;
  /** The fastest fixed variant in these passes. */
  best_fixed: Lz4Variant;
}

/** `blocks` are size-prefixed LZ4 blocks, as lz4Compress writes them. */
export function benchLz4Variants(blocks: readonly Uint8Array[], policy: TimingPolicy): Lz4VariantReport {
  if (blocks.length === 0) throw new Error("bench lz4 variants: no blocks");
  const decoders: Lz4Decoder[] = ["reference", ...LZ4_VARIANTS, "bandit"];
  const decode = (d: Lz4Decoder) =>
    d === "bandit" ? (b: Uint8Array) => lz4Decompress(b) : (b: Uint8Array) => lz4DecompressWith(b, d);
  const expected = blocks.map((b) => lz4DecompressWith(b, "reference"));
  for (const d of decoders) {
    blocks.forEach((b, i) => {
      if (Buffer.compare(decode(d)(b), expected[i]!) !== 0)
        throw new Error(`bench lz4 variants: ${d} decoded block ${i} differently from the reference`);
    });
  }
  const bytes = blocks.reduce((n, b) => n + lz4StoredSize(b), 0);
  const timings = measureAll(
    decoders.map((d) => {
      const fn = decode(d);
      return () => blocks.forEach((b) => fn(b));
    }),
    policy,
  );
  const speeds = timings.map((t) => mbPerSecond(bytes, t.seconds));
  const rows = decoders.map((variant, i) => ({
    variant,
    mb_per_s: round(speeds[i]!, 1),
    ratio_vs_reference: round(speeds[i]! / speeds[0]!, 3),
  }));
  const fixed = rows.filter((r): r is Lz4VariantRow & { variant: Lz4Variant } =>
    (LZ4_VARIANTS as readonly string[]).includes(r.variant),
  );
  const best = fixed.reduce((a, b) => (b.mb_per_s > a.mb_per_s ? b : a));
  return { rows, bandit_choice: lz4VariantChoice().current, best_fixed: best.variant };
}
