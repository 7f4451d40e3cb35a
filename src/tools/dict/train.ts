/**
 * Trains a reduced static-dictionary table for one content type: compresses
 * every corpus file at quality 5 in trace mode with a candidate table of
 * every dictionary word of length 4..24 under the candidate transforms, sums
 * each (word, transform) pair's gain under brotli's own cost model over the
 * corpus (./select.ts), and keeps the best `maxEntries` pairs used in at least
 * `minFiles` files.
 *
 * Same files (same bytes, same order: ./corpus.ts sorts them) and same
 * options give the same table, byte for byte: the encoder is deterministic,
 * gains are integers summed in file order, and ties break by
 * (length, index, transform).
 *
 * @example
 * const files = corpusFiles(["../shared/corpus/web"], { type: "css", part: "train" });
 * const { table } = trainTable(files, { maxEntries: 2048 });
 */
import { readFileSync } from "node:fs";
import { heapOf, ReducedDictionary, traceDictionaryCandidates } from "../../codec/index.ts";
import {
  ALL_PAIRS,
  encodeTable,
  wordCount,
  MAX_WORD_LENGTH,
  MIN_WORD_LENGTH,
  type TableEntry,
} from "../../codec/dict/table-format.ts";
import { TRANSFORM_COUNT } from "./transforms.ts";
import type { CorpusFile } from "./corpus.ts";
import { GainTally, type PairScore } from "./select.ts";

export interface TrainOptions {
  /** Pairs to keep. */
  maxEntries: number;
  /** Keep only pairs used in at least this many files. Default 2. */
  minFiles?: number;
  /** Candidate transform ids. Default: every one of the 121. */
  transforms?: readonly number[];
  /** Quality the trace runs at; the edge's dynamic quality. Default 5. */
  quality?: number;
  /** Progress for a human (stderr). */
  log?: (line: string) => void;
}

export interface TrainResult {
  /** The canonical `.psd` bytes. */
  table: Uint8Array;
  /** The kept pairs, best first. */
  kept: PairScore[];
  /** Every pair the corpus used, best first. */
  scores: PairScore[];
  files: number;
  inputBytes: number;
}

/** Every word of length 4..24 under each of `transforms`. */
export function candidatePairs(transforms: readonly number[]): TableEntry[] {
  const pairs: TableEntry[] = [];
  for (let length = MIN_WORD_LENGTH; length <= MAX_WORD_LENGTH; length++) {
    for (let index = 0; index < wordCount(length); index++) {
      for (const transform of transforms) pairs.push({ length, index, transform });
    }
  }
  return pairs;
}

export const ALL_TRANSFORMS: readonly number[] = Array.from({ length: TRANSFORM_COUNT }, (_, i) => i);

/** Progress at most every this many milliseconds, so a long run says it is alive without flooding stderr. */
const PROGRESS_EVERY_MS = 2_000;

export function trainTable(files: readonly CorpusFile[], options: TrainOptions): TrainResult {
  const quality = options.quality ?? 5;
  const log = options.log ?? (() => {});
  const candidates = encodeTable(candidatePairs(options.transforms ?? ALL_TRANSFORMS), { maxEntries: ALL_PAIRS });
  const started = Date.now();
  // A candidate table of every pair prepares in ~75 MiB of heap, past
  // codec.recycleHeapBytes: an idle heap that big is retired, and the next
  // file would prepare it again (~9 s). Holding the heap keeps it for the run.
  const heap = heapOf("brotli");
  heap.acquire();
  const prepared = ReducedDictionary.prepare(candidates);
  log(`dict train: ${prepared.entries} candidate pairs prepared in ${Date.now() - started} ms`);
  const tally = new GainTally();
  let inputBytes = 0;
  let lastLog = Date.now();
  try {
    files.forEach((file, i) => {
      const input = readFileSync(file.path);
      inputBytes += input.byteLength;
      const events = traceDictionaryCandidates(input, { quality, table: prepared });
      tally.addFile(
        events.map((e) => ({ length: e.wordLength, index: e.wordIndex, transform: e.transformId, gain: e.scoreGain })),
      );
      if (Date.now() - lastLog >= PROGRESS_EVERY_MS || i === files.length - 1) {
        lastLog = Date.now();
        log(
          `dict train: ${i + 1}/${files.length} files, ${(inputBytes / 1e6).toFixed(1)} MB, ${((Date.now() - started) / 1000).toFixed(1)} s`,
        );
      }
    });
  } finally {
    prepared.dispose();
    heap.release();
  }
  const scores = tally.scores();
  const kept = tally.select({ maxEntries: options.maxEntries, minFiles: options.minFiles });
  return { table: encodeTable(kept), kept, scores, files: files.length, inputBytes };
}
