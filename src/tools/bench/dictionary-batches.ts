/**
 * Timing dictionary calls as the archive makes them: each dictionary
 * prepared once and found again in the prepared-dictionary cache
 * (src/codec/brotli/dictionary-cache.ts), not prepared anew per call.
 *
 * The sample has more dictionaries than the cache holds, and a pass over all
 * of them in turn would evict each before its next use, so the pairs are
 * timed in runs whose prepared dictionaries fit the cache together
 * (LIMITS.codec.preparedDictionaryCacheBytes). Each run is warmed once (which
 * prepares its dictionaries), then its dictionary passes alternate with plain
 * passes over the same inputs, and the runs' times add up. Timing every
 * pair in one pass instead measured preparation: 224 dictionaries outgrew
 * codec.recycleHeapBytes, the idle heap was replaced after each call, and
 * every dictionary was prepared again on every pass (q5: a dictionary call
 * at 1.84 x a plain one; in cache-sized runs, 0.79 x).
 */
import { LIMITS } from "../../limits.ts";
import { preparedDictionaryHeapBytes } from "../../codec/index.ts";
import type { DictPair } from "./corpus.ts";
import { measureAll, type TimingPolicy } from "./harness/timing.ts";

/** Consecutive runs of pairs whose prepared dictionaries fit `budget` bytes of heap together; a dictionary too big for it runs alone. */
export function cacheSizedRuns<T extends Pick<DictPair, "dictionary">>(
  pairs: readonly T[],
  budget: number = LIMITS.codec.preparedDictionaryCacheBytes,
): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let cost = 0;
  for (const pair of pairs) {
    const c = preparedDictionaryHeapBytes(pair.dictionary.byteLength);
    if (run.length > 0 && cost + c > budget) {
      runs.push(run);
      run = [];
      cost = 0;
    }
    run.push(pair);
    cost += c;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** The four operations timed per run; each gets one pair and its index in the whole list. */
export interface DictionaryOps {
  dictCompress(pair: DictPair, i: number): void;
  plainCompress(pair: DictPair, i: number): void;
  dictDecompress(pair: DictPair, i: number): void;
  plainDecompress(pair: DictPair, i: number): void;
}

export interface DictionarySeconds {
  dictCompress: number;
  plainCompress: number;
  dictDecompress: number;
  plainDecompress: number;
  runs: number;
}

/** Seconds per pass over all pairs of each operation, summed over cache-sized runs. */
export function timeInCacheSizedRuns(
  pairs: readonly DictPair[],
  ops: DictionaryOps,
  policy: TimingPolicy,
): DictionarySeconds {
  const total: DictionarySeconds = {
    dictCompress: 0,
    plainCompress: 0,
    dictDecompress: 0,
    plainDecompress: 0,
    runs: 0,
  };
  let offset = 0;
  for (const run of cacheSizedRuns(pairs)) {
    const first = offset;
    const over = (op: (pair: DictPair, i: number) => void) => () => run.forEach((pair, k) => op(pair, first + k));
    const [dc, pc, dd, pd] = measureAll(
      [over(ops.dictCompress), over(ops.plainCompress), over(ops.dictDecompress), over(ops.plainDecompress)],
      policy,
    );
    total.dictCompress += dc!.seconds;
    total.plainCompress += pc!.seconds;
    total.dictDecompress += dd!.seconds;
    total.plainDecompress += pd!.seconds;
    total.runs++;
    offset += run.length;
  }
  return total;
}
