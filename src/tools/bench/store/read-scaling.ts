/**
 * "Read latency does not depend on history length": synthetic pages
 * (synthetic.ts: every revision of every length from the same distribution,
 * about 20–25 KB) of 10, 100, 1,000 and 10,000 revisions are imported into
 * one local Worker and their read latency compared. Each page gets
 * {@link WARMUP_READS} untimed warm-up reads, then `reads` timed reads of
 * random revisions (seeded; a page shorter than that has its revisions read
 * over and over), all verified, made in alternating runs of
 * {@link READ_SCALING_RUN} reads per page, page after page, so that drifting
 * load on the machine falls on every length alike.
 *
 * One row for the whole check:
 *
 * | field | meaning |
 * |---|---|
 * | row | `"read_scaling"` |
 * | reads_per_length | timed reads per page |
 * | lengths | one object per page, shortest first: `revisions`, `mean_revision_bytes` (to show the content size is the same), `p50_ms`, `p99_ms`, `max_blob_reads`, `max_decode_amplification` (reads.ts) |
 * | p50_ratio | p50 of the longest page / p50 of the shortest (10,000 vs 10 by default) |
 * | target_met | p50_ratio within ±20 % of 1 (targets.ts) |
 *
 * @example
 * const row = await readScaling(client, { seed: 1, lengths: [10, 100, 1_000, 10_000] });
 */
import type { ArchiveClient } from "../../local/archive-client.ts";
import { normalizeTitle } from "../../../page/title.ts";
import { mulberry32 } from "../../../lib/mulberry32.ts";
import { sampleIndices } from "../../../lib/sample.ts";
import { percentile, round, sig4 } from "../harness/index.ts";
import { importHistory, type RevisionRef } from "./importer.ts";
import { readRevision, ReadTally, WARMUP_READS } from "./reads.ts";
import { syntheticHistory } from "./synthetic.ts";
import { readScalingTargetMet } from "./targets.ts";

export const READ_SCALING_LENGTHS: readonly number[] = [10, 100, 1_000, 10_000];
/** Timed reads per page. */
export const READ_SCALING_READS = 400;
const READ_SCALING_RUN = 50;

export const READ_SCALING_KEYS = ["row", "reads_per_length", "lengths", "p50_ratio", "target_met"] as const;
export const READ_SCALING_LENGTH_KEYS = [
  "revisions",
  "mean_revision_bytes",
  "p50_ms",
  "p99_ms",
  "max_blob_reads",
  "max_decode_amplification",
] as const;

export type ReadScalingLength = { [K in (typeof READ_SCALING_LENGTH_KEYS)[number]]: number };

export interface ReadScalingRow {
  row: "read_scaling";
  reads_per_length: number;
  lengths: ReadScalingLength[];
  p50_ratio: number;
  target_met: boolean;
}

export interface ReadScalingOptions {
  seed: number;
  /** History lengths, at least two; default {@link READ_SCALING_LENGTHS}. */
  lengths?: readonly number[];
  /** Timed reads per page; default {@link READ_SCALING_READS}. */
  reads?: number;
  log?: (line: string) => void;
}

interface TimedPage {
  key: string;
  revisions: number;
  meanRevisionBytes: number;
  order: RevisionRef[];
  tally: ReadTally;
}

/** Imports a synthetic page of `count` revisions and picks the `reads` revisions its timed reads will ask for, in order. */
async function importSynthetic(
  client: ArchiveClient,
  count: number,
  reads: number,
  seed: number,
  log: (line: string) => void,
): Promise<TimedPage> {
  const title = normalizeTitle(`Bench length ${count}`) as { title: string; key: string };
  const imported = await importHistory(client, title.key, syntheticHistory(title.title, count, seed), {
    onProgress: ({ revisions }) => revisions % 1280 === 0 && log(`${title.key}: imported ${revisions} revisions`),
  });
  log(
    `${title.key}: ${imported.revisions.length} revisions, ${imported.rawBytes} bytes, imported in ${imported.seconds.toFixed(1)} s`,
  );
  const rand = mulberry32(seed + count);
  const order: RevisionRef[] = [];
  while (order.length < reads)
    order.push(...sampleIndices(imported.revisions.length, reads, rand).map((i) => imported.revisions[i]!));
  return {
    key: title.key,
    revisions: count,
    meanRevisionBytes: imported.rawBytes / count,
    order: order.slice(0, reads),
    tally: new ReadTally(),
  };
}

export async function readScaling(client: ArchiveClient, options: ReadScalingOptions): Promise<ReadScalingRow> {
  const log = (line: string) => options.log?.(`bench store: read scaling: ${line}`);
  const lengths = [...new Set(options.lengths ?? READ_SCALING_LENGTHS)].sort((a, b) => a - b);
  if (lengths.length < 2)
    throw new Error(`read scaling compares at least two history lengths, got ${lengths.join(", ")}`);
  const reads = options.reads ?? READ_SCALING_READS;
  const pages: TimedPage[] = [];
  for (const count of lengths) pages.push(await importSynthetic(client, count, reads, options.seed, log));
  for (const page of pages)
    for (const rev of page.order.slice(0, WARMUP_READS)) await readRevision(client, page.key, rev);
  for (let at = 0; at < reads; at += READ_SCALING_RUN) {
    for (const page of pages) {
      for (const rev of page.order.slice(at, at + READ_SCALING_RUN))
        page.tally.add(rev, await readRevision(client, page.key, rev));
    }
  }
  const summaries = pages.map((page) => page.tally.summary());
  const p50 = summaries.map((m) => percentile(m.latenciesMs, 50));
  const rows = pages.map((page, i): ReadScalingLength => ({
    revisions: page.revisions,
    mean_revision_bytes: Math.round(page.meanRevisionBytes),
    p50_ms: round(p50[i]!, 3),
    p99_ms: round(percentile(summaries[i]!.latenciesMs, 99), 3),
    max_blob_reads: summaries[i]!.maxBlobReads,
    max_decode_amplification: sig4(summaries[i]!.maxAmplification),
  }));
  const p50Ratio = p50.at(-1)! / p50[0]!;
  return {
    row: "read_scaling",
    reads_per_length: reads,
    lengths: rows,
    p50_ratio: round(p50Ratio, 3),
    target_met: readScalingTargetMet(p50Ratio),
  };
}
