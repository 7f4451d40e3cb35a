/**
 * How every throughput number in the benches is taken, native baselines
 * included (src/tools/bench/lz4-bench.c mirrors this): run the whole pass a few
 * times to warm up (JIT, wasm tier-up, heap growth), then time whole passes
 * until both a minimum count and a minimum wall time are reached, and report
 * the median pass. The median, not the best, because GC pauses and the
 * occasional wasm heap regrowth are real costs of the JS side that best-of-N
 * would quietly drop. A bench that compares two encoders on many small
 * inputs, where a pass lasts a millisecond and one scheduler hiccup would
 * decide the ratio, asks for the best pass instead (`statistic: "best"`,
 * bench dict), both sides alike. A figure and its in-process baseline are timed with
 * alternating passes (`measurePair`), so load from other processes on the
 * machine, which drifts over seconds, falls on both alike.
 *
 * @example
 * const { seconds } = measure(() => items.forEach((b) => lz4Compress(b)), DEFAULT_POLICY);
 * const [wasm, native] = measurePair(wasmPass, nativePass, DEFAULT_POLICY);
 */
import { median } from "./stats.ts";

export interface TimingPolicy {
  /** Untimed passes first... */
  warmupPasses: number;
  /**
   * ...and on until they have run this long, in seconds (default 0). V8 runs
   * wasm in its baseline compiler until a function has been called enough,
   * and a function already running never switches: one warm-up pass of a
   * few milliseconds left the LZ4 decoder timed half in the baseline tier
   * (1,615 MB/s over the first 30 passes, 2,992 over the next 30).
   */
  warmupSeconds?: number;
  /** Timed passes at least this many... */
  minPasses: number;
  /** ...and for at least this long in total, in seconds... */
  minSeconds: number;
  /** ...but never more passes than this. */
  maxPasses: number;
  /** Which pass a Timing reports: the median (default) or the fastest. */
  statistic?: "median" | "best";
}

/** Sized so the default codec bench (~7 MB sample, ~40 measurements) ends in about a minute. */
export const DEFAULT_POLICY: TimingPolicy = {
  warmupPasses: 1,
  warmupSeconds: 0.25,
  minPasses: 3,
  minSeconds: 0.5,
  maxPasses: 2000,
};

/** For tests and smoke runs: numbers are noisy but every code path runs. */
export const QUICK_POLICY: TimingPolicy = { warmupPasses: 1, minPasses: 1, minSeconds: 0.01, maxPasses: 5 };

export interface Timing {
  /** Seconds per pass: the median pass, or the fastest (TimingPolicy.statistic). */
  seconds: number;
  passes: number;
}

function timePass(pass: () => void): number {
  const t0 = process.hrtime.bigint();
  pass();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/**
 * Times each pass in turn, one round after another: at least minPasses
 * rounds, and on until the slowest pass has run minSeconds in total.
 */
export function measureAll(passes: readonly (() => void)[], policy: TimingPolicy): Timing[] {
  let warm = 0;
  for (let i = 0; i < policy.warmupPasses || warm < (policy.warmupSeconds ?? 0); i++)
    passes.forEach((pass) => (warm += timePass(pass) / passes.length));
  const times = passes.map((): number[] => []);
  const spent = passes.map(() => 0);
  while (
    times[0]!.length < policy.maxPasses &&
    (times[0]!.length < policy.minPasses || Math.max(...spent) < policy.minSeconds)
  ) {
    passes.forEach((pass, i) => {
      const dt = timePass(pass);
      times[i]!.push(dt);
      spent[i]! += dt;
    });
  }
  return times.map((t) => ({ seconds: policy.statistic === "best" ? Math.min(...t) : median(t), passes: t.length }));
}

export function measure(pass: () => void, policy: TimingPolicy): Timing {
  return measureAll([pass], policy)[0]!;
}

/** Alternates passes of `a` and `b`, both counted alike. */
export function measurePair(a: () => void, b: () => void, policy: TimingPolicy): [Timing, Timing] {
  const [ta, tb] = measureAll([a, b], policy);
  return [ta!, tb!];
}
