/**
 * Seeded randomness and order statistics for the store bench, so two runs
 * on the same export read the same revisions in the same order.
 *
 * @example
 * const rand = mulberry32(1);
 * const order = shuffle([1, 2, 3, 4], rand);
 * percentile([5, 1, 3], 50); // 3
 */

export { mulberry32 } from "../../random/mulberry32.ts";

/** Fisher–Yates on a copy. */
export function shuffle<T>(items: readonly T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Which of `count` items to read: all of them when there are at most
 * `sampleSize`, else `sampleSize` distinct random ones plus the first and the
 * last. Returned indices are in random order (the order reads are made in).
 */
export function sampleIndices(count: number, sampleSize: number, rand: () => number): number[] {
  const all = Array.from({ length: count }, (_, i) => i);
  if (count <= sampleSize) return shuffle(all, rand);
  const middle = shuffle(all.slice(1, -1), rand).slice(0, sampleSize);
  return shuffle([0, ...middle, count - 1], rand);
}

/** Percentile by linear interpolation between closest ranks (p in 0..100); p50 is the median. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error("percentile of nothing");
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}
