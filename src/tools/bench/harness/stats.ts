/**
 * The statistics every bench reports with: order statistics, means and the
 * rounding a row's figures get, so two benches never compute "p99" or
 * "rounded to 3 digits" two ways.
 *
 * @example
 * percentile([5, 1, 3], 50); // 3
 * round(2 / 3, 3); // 0.667
 */

/** Percentile by linear interpolation between closest ranks (p in 0..100); p50 is the median. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error("percentile of nothing");
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of nothing");
  return percentile(values, 50);
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new Error("mean of nothing");
  return values.reduce((a, b) => a + b, 0) / values.length;
}

export function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}

/** A rounded percentile for a row, or null when nothing was measured (a row never says 0 for "no data"). */
export function roundedPercentile(values: readonly number[], p: number, digits = 2): number | null {
  return values.length === 0 ? null : round(percentile(values, p), digits);
}

/** Fractions keep 4 significant digits: 0.001294 stays readable as 0.129 %. */
export function sig4(x: number): number {
  return Number(x.toPrecision(4));
}

/** Megabytes (1e6 bytes) of uncompressed data per second. */
export function mbPerSecond(uncompressedBytes: number, seconds: number): number {
  return uncompressedBytes / 1e6 / seconds;
}
