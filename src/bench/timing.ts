/**
 * How every throughput number in the bench is taken, native baselines
 * included (src/bench/lz4-bench.c mirrors this): run the whole pass a few
 * times to warm up (JIT, wasm tier-up, heap growth), then time whole passes
 * until both a minimum count and a minimum wall time are reached, and report
 * the median pass. The median, not the best, because GC pauses and the
 * occasional wasm heap regrowth are real costs of the JS side that best-of-N
 * would quietly drop. A row and its in-process baseline are timed with
 * alternating passes (`measurePair`), so load from other processes on the
 * machine, which drifts over seconds, falls on both alike.
 *
 * @example
 * const { seconds } = measure(() => items.forEach((b) => lz4Compress(b)), DEFAULT_POLICY);
 * const [wasm, native] = measurePair(wasmPass, nativePass, DEFAULT_POLICY);
 */

export interface TimingPolicy {
  /** Untimed passes first. */
  warmupPasses: number;
  /** Timed passes at least this many... */
  minPasses: number;
  /** ...and for at least this long in total, in seconds... */
  minSeconds: number;
  /** ...but never more passes than this. */
  maxPasses: number;
}

/** Sized so the default bench (~7 MB sample, ~40 measurements) ends in about a minute. */
export const DEFAULT_POLICY: TimingPolicy = { warmupPasses: 1, minPasses: 3, minSeconds: 0.5, maxPasses: 2000 };

/** For tests and smoke runs: numbers are noisy but every code path runs. */
export const QUICK_POLICY: TimingPolicy = { warmupPasses: 1, minPasses: 1, minSeconds: 0.01, maxPasses: 5 };

export interface Timing {
  /** Median seconds per pass. */
  seconds: number;
  passes: number;
}

export function measure(pass: () => void, policy: TimingPolicy): Timing {
  for (let i = 0; i < policy.warmupPasses; i++) pass();
  const times: number[] = [];
  let spent = 0;
  while (times.length < policy.maxPasses && (times.length < policy.minPasses || spent < policy.minSeconds)) {
    const dt = timePass(pass);
    times.push(dt);
    spent += dt;
  }
  return { seconds: median(times), passes: times.length };
}

function timePass(pass: () => void): number {
  const t0 = process.hrtime.bigint();
  pass();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/**
 * Alternates passes of `a` and `b`, both counted alike: at least minPasses
 * each, and on until the slower of the two has run minSeconds.
 */
export function measurePair(a: () => void, b: () => void, policy: TimingPolicy): [Timing, Timing] {
  for (let i = 0; i < policy.warmupPasses; i++) {
    a();
    b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  let spentA = 0;
  let spentB = 0;
  while (ta.length < policy.maxPasses && (ta.length < policy.minPasses || Math.max(spentA, spentB) < policy.minSeconds)) {
    const da = timePass(a);
    const db = timePass(b);
    ta.push(da);
    tb.push(db);
    spentA += da;
    spentB += db;
  }
  return [
    { seconds: median(ta), passes: ta.length },
    { seconds: median(tb), passes: tb.length },
  ];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of nothing");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Megabytes (1e6 bytes) of uncompressed data per second. */
export function mbPerSecond(uncompressedBytes: number, seconds: number): number {
  return uncompressedBytes / 1e6 / seconds;
}
