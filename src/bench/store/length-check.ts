/**
 * "Read latency does not depend on history length": a 10-revision and a
 * 10,000-revision synthetic page (synthetic.ts) are imported into one local
 * Worker and their read p50 compared. Each page gets a warm-up, then
 * {@link LENGTH_CHECK_READS} timed reads in a seeded random order (the short
 * page's 10 revisions over and over, the long page's random revisions, all
 * verified), alternating between the pages every {@link LENGTH_CHECK_RUN}
 * reads so that drifting load on the machine falls on both alike.
 *
 * @example
 * const row = await lengthCheck(client, { seed: 1, longRevisions: 10_000 }); // { check, p50_ms_10, p50_ms_10000, ratio }
 */
import type { ArchiveClient } from "../../local/archive-client.ts";
import { normalizeTitle } from "../../page/title.ts";
import { mulberry32 } from "../../random/mulberry32.ts";
import { sampleIndices } from "../../random/sample.ts";
import { percentile, round } from "../harness/index.ts";
import { importHistory, type RevisionRef } from "./importer.ts";
import { readRevision, WARMUP_READS } from "./reads.ts";
import { syntheticHistory } from "./synthetic.ts";

export const LENGTH_CHECK_KEYS = ["check", "p50_ms_10", "p50_ms_10000", "ratio"] as const;

/**
 * `p50_ms_10000` is named after the long page's length: with
 * `longRevisions` other than 10,000 the key says so (`p50_ms_8000`).
 */
export interface LengthCheckRow {
  check: "read_p50_vs_length";
  p50_ms_10: number;
  p50_ms_10000: number;
  /** p50 of the long page / p50 of the short one. */
  ratio: number;
}

/** Revisions in the short and the long synthetic history. */
export const LENGTH_CHECK_REVISIONS = { short: 10, long: 10_000 } as const;
/** Timed reads per page, made in alternating runs of {@link LENGTH_CHECK_RUN}. */
export const LENGTH_CHECK_READS = 400;
const LENGTH_CHECK_RUN = 50;

interface TimedPage {
  key: string;
  order: RevisionRef[];
  ms: number[];
}

/** Imports a synthetic page of `count` revisions and picks the revisions its reads will ask for, in order. */
async function importSynthetic(client: ArchiveClient, count: number, seed: number, log: (line: string) => void): Promise<TimedPage> {
  const title = normalizeTitle(`Bench length ${count}`) as { title: string; key: string };
  const imported = await importHistory(client, title.key, syntheticHistory(title.title, count, seed), {
    onProgress: ({ revisions }) => revisions % 1280 === 0 && log(`${title.key}: imported ${revisions} revisions`),
  });
  log(`${title.key}: ${imported.revisions.length} revisions, ${imported.rawBytes} bytes, imported in ${imported.seconds.toFixed(1)} s`);
  const rand = mulberry32(seed + count);
  const order: RevisionRef[] = [];
  while (order.length < LENGTH_CHECK_READS) order.push(...sampleIndices(imported.revisions.length, LENGTH_CHECK_READS, rand).map((i) => imported.revisions[i]!));
  return { key: title.key, order: order.slice(0, LENGTH_CHECK_READS), ms: [] };
}

export async function lengthCheck(client: ArchiveClient, options: { seed: number; longRevisions?: number; log?: (line: string) => void }): Promise<LengthCheckRow> {
  const log = (line: string) => options.log?.(`bench store: length check: ${line}`);
  const long = options.longRevisions ?? LENGTH_CHECK_REVISIONS.long;
  const pages: TimedPage[] = [];
  for (const count of [LENGTH_CHECK_REVISIONS.short, long]) pages.push(await importSynthetic(client, count, options.seed, log));
  for (const page of pages) for (const rev of page.order.slice(0, WARMUP_READS)) await readRevision(client, page.key, rev);
  for (let at = 0; at < LENGTH_CHECK_READS; at += LENGTH_CHECK_RUN) {
    for (const page of pages) {
      for (const rev of page.order.slice(at, at + LENGTH_CHECK_RUN)) page.ms.push((await readRevision(client, page.key, rev)).ms);
    }
  }
  const [p50Short, p50Long] = pages.map((p) => percentile(p.ms, 50)) as [number, number];
  const row = { check: "read_p50_vs_length", p50_ms_10: round(p50Short, 3), [`p50_ms_${long}`]: round(p50Long, 3), ratio: round(p50Long / p50Short, 3) };
  return row as unknown as LengthCheckRow;
}
