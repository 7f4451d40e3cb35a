/**
 * A figure against its baseline, both taken in the same run and the same
 * way (see timing.ts). The ratio is taken from the rounded figures a row
 * prints, so a reader can check it from the row alone.
 *
 * @example
 * const c = compareThroughput(wasmPass, nativePass, bytesPerPass, DEFAULT_POLICY);
 * c.ratio; // c.mbPerS / c.baselineMbPerS, to 4 decimals
 */
import { mbPerSecond, round } from "./stats.ts";
import { measurePair, type TimingPolicy } from "./timing.ts";

export interface Comparison {
  mbPerS: number;
  baselineMbPerS: number | null;
  /** mbPerS / baselineMbPerS; null without a baseline. */
  ratio: number | null;
}

/** Rounds both speeds for printing and takes their ratio. */
export function comparison(mbPerS: number, baselineMbPerS: number | null): Comparison {
  const own = round(mbPerS, 3);
  const base = baselineMbPerS === null ? null : round(baselineMbPerS, 3);
  return { mbPerS: own, baselineMbPerS: base, ratio: base ? round(own / base, 4) : null };
}

/** Times a pass and its baseline with alternating passes, so drifting load falls on both alike. */
export function compareThroughput(
  own: () => void,
  baseline: () => void,
  bytesPerPass: number,
  policy: TimingPolicy,
): Comparison {
  const [a, b] = measurePair(own, baseline, policy);
  return comparison(mbPerSecond(bytesPerPass, a.seconds), mbPerSecond(bytesPerPass, b.seconds));
}
