/**
 * The archive's storage targets (what it must beat: git and xz on the same
 * history, and a bounded cost per read), in one table, and the checks the store bench
 * reports against them:
 *
 * - bytes: a history's stored bytes (blobs + SQLite) at most
 *   max({@link STORE_TARGETS.gitPackFactor} × git aggressive pack + idx,
 *   {@link STORE_TARGETS.xzFactor} × solid `xz -9e`), both from the same run
 *   (baselines.ts);
 * - reads: at most {@link STORE_TARGETS.maxBlobReads} blob reads and at most
 *   {@link STORE_TARGETS.maxDecodeAmplification} × the revision's own size
 *   decoded, on every read measured;
 * - read scaling: read p50 at the longest synthetic history within
 *   ± {@link STORE_TARGETS.readScalingTolerance} of p50 at the shortest
 *   (10,000 vs 10 revisions by default).
 *
 * @example
 * bytesTarget(40_000, 20_000); // 25_000: max(0.5 × 40,000, 1.25 × 20,000)
 * readsTargetMet(2, 11.5); // true
 */

export const STORE_TARGETS = {
  gitPackFactor: 0.5,
  xzFactor: 1.25,
  maxBlobReads: 2,
  maxDecodeAmplification: 16,
  readScalingTolerance: 0.2,
} as const;

/** The most a history may store, in bytes; null when either anchor is missing (git or xz not installed). */
export function bytesTarget(gitPackAndIdxBytes: number | null, xzBytes: number | null): number | null {
  if (gitPackAndIdxBytes === null || xzBytes === null) return null;
  return Math.floor(Math.max(STORE_TARGETS.gitPackFactor * gitPackAndIdxBytes, STORE_TARGETS.xzFactor * xzBytes));
}

export function readsTargetMet(maxBlobReads: number, maxDecodeAmplification: number): boolean {
  return maxBlobReads <= STORE_TARGETS.maxBlobReads && maxDecodeAmplification <= STORE_TARGETS.maxDecodeAmplification;
}

/** `p50Ratio` is p50 at the longest history / p50 at the shortest. */
export function readScalingTargetMet(p50Ratio: number): boolean {
  return Math.abs(p50Ratio - 1) <= STORE_TARGETS.readScalingTolerance;
}
