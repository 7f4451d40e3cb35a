/**
 * Seeded choices over a list, so two runs with one seed pick the same items
 * in the same order.
 *
 * @example
 * const rand = mulberry32(1);
 * shuffle([1, 2, 3, 4], rand);
 * sampleIndices(198, 40, rand); // 40 random revisions, plus the first and the last
 */

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
 * Which of `count` items to take: all of them when there are at most
 * `sampleSize`, else `sampleSize` distinct random ones plus the first and the
 * last. Returned indices are in random order.
 */
export function sampleIndices(count: number, sampleSize: number, rand: () => number): number[] {
  const all = Array.from({ length: count }, (_, i) => i);
  if (count <= sampleSize) return shuffle(all, rand);
  const middle = shuffle(all.slice(1, -1), rand).slice(0, sampleSize);
  return shuffle([0, ...middle, count - 1], rand);
}
