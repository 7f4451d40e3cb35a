/**
 * The trainer's bookkeeping: sums what each (word, transform) pair would
 * save over a corpus, then keeps the pairs worth their place in the table.
 *
 * A pair's score is the sum of the encoder's own estimate of the bits it
 * saves at each position it was the best reduced-dictionary match (the
 * trace, src/codec/brotli/reduced-dictionary.ts). Pairs seen in only one
 * file are dropped by default: a word only one document uses is that
 * document's, and spends a table slot (search CPU on every response) on
 * nothing the next document will say. Ties are broken by
 * (length, index, transform), so the same corpus always gives the same table.
 *
 * @example
 * const tally = new GainTally();
 * tally.addFile(hits);          // one call per corpus file
 * const table = tally.select({ maxEntries: 4096, minFiles: 2 });
 */
import { compareEntries, entryKey, entryOfKey, type TableEntry } from "../../codec/dict/table-format.ts";

/** One position where a candidate pair beat what LZ77 found. */
export interface GainHit extends TableEntry {
  /** What using the pair there saves, in the encoder's cost units (bits); only > 0 is counted. */
  gain: number;
}

export interface PairScore extends TableEntry {
  /** Summed gain over the corpus. */
  gain: number;
  /** Positions it was used at. */
  hits: number;
  /** Files it was used in. */
  files: number;
}

export interface SelectOptions {
  /** Keep at most this many pairs. */
  maxEntries: number;
  /** Drop pairs used in fewer files than this. Default 2. */
  minFiles?: number;
}

export class GainTally {
  readonly #gain = new Map<number, number>();
  readonly #hits = new Map<number, number>();
  readonly #files = new Map<number, number>();
  #fileCount = 0;

  /** Adds one file's hits. Each pair counts one file however often the file uses it. */
  addFile(hits: Iterable<GainHit>): void {
    const seen = new Set<number>();
    for (const hit of hits) {
      if (!(hit.gain > 0)) continue;
      const key = entryKey(hit);
      this.#gain.set(key, (this.#gain.get(key) ?? 0) + hit.gain);
      this.#hits.set(key, (this.#hits.get(key) ?? 0) + 1);
      seen.add(key);
    }
    for (const key of seen) this.#files.set(key, (this.#files.get(key) ?? 0) + 1);
    this.#fileCount++;
  }

  get fileCount(): number {
    return this.#fileCount;
  }

  /** Every pair seen, best first (gain descending, then table order). */
  scores(): PairScore[] {
    return [...this.#gain.entries()]
      .map(([key, gain]): PairScore => ({
        ...entryOfKey(key),
        gain,
        hits: this.#hits.get(key)!,
        files: this.#files.get(key)!,
      }))
      .sort((a, b) => b.gain - a.gain || compareEntries(a, b));
  }

  /** The pairs to keep, best first. */
  select(options: SelectOptions): PairScore[] {
    const minFiles = options.minFiles ?? 2;
    return this.scores()
      .filter((s) => s.files >= minFiles)
      .slice(0, options.maxEntries);
  }
}

/** Sums scores by transform: which transforms earn their keep (for the trainer's report). */
export function gainByTransform(scores: readonly PairScore[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of scores) out.set(s.transform, (out.get(s.transform) ?? 0) + s.gain);
  return out;
}
