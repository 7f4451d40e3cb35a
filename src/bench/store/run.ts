/**
 * `bench store`: how well the archive stores real revision histories, and
 * what reading them back costs, measured through the very code the Worker
 * runs: each history is imported over HTTP into the project's own Worker
 * (`PageStore` Durable Object, KV blobs) running locally in workerd via
 * wrangler (see local-archive.ts), then read back over the public API.
 *
 * Per history, in order and never overlapping (so no phase's timings carry
 * another's load): import (timed per batch), stats, reads (verified, timed),
 * then a second pass over the export for the baselines (baselines.ts).
 *
 * Row fields (one JSON line per history):
 *
 * | field | meaning |
 * |---|---|
 * | history | file name without `.xml.br` etc. |
 * | revisions, raw_bytes | revisions imported and their UTF-8 text bytes |
 * | stored_bytes | live blob bytes + the page's SQLite database size (`GET /api/pages/{key}/stats`: blobBytes + metadataBytes) |
 * | ratio | stored_bytes / raw_bytes, a fraction: 0.0052 means 0.52 % |
 * | blobs | live blobs |
 * | max_blob_reads_per_read, max_decodes_per_read | maxima over the reads of `x-read-cost`'s blob-reads and decodes, as the origin reports them (blobs a read needs, held parsed or not); the KV reads themselves are counted at the binding in test/workers/storage/blob-reads-integration-self.test.ts |
 * | mean_decoded_bytes_per_read | mean of `x-read-cost`'s decoded-bytes |
 * | read_ms_p50, read_ms_p99 | wall-clock ms per `GET /page/{key}/{revid}` (request to full body), over random revisions after a warm-up (reads.ts) |
 * | write_ms_p50 | median over revisions of batch request time / revisions in the batch (importer.ts) |
 * | baseline_*_ratio | the same kind of fraction for the baselines (baselines.ts); git is null without git |
 *
 * @example
 * const row = await benchHistory("../shared/corpus/histories/bip-0340.xml.br", { seed: 1, log: console.error });
 */
import { ArchiveClient } from "../../cli/archive-client.ts";
import type { ExportRevision } from "../../import/mediawiki-reader.ts";
import { normalizeTitle } from "../../page/title.ts";
import { Baselines, type BaselineFigures } from "./baselines.ts";
import { exportRevisions, historyName, HistoryInputError } from "./history.ts";
import { importHistory, type ImportResult, type RevisionRef } from "./importer.ts";
import { startLocalArchive } from "./local-archive.ts";
import { measureReads, readRevision, WARMUP_READS } from "./reads.ts";
import { mulberry32, percentile, sampleIndices } from "./sampling.ts";
import { syntheticHistory } from "./synthetic.ts";

export const STORE_ROW_KEYS = [
  "history",
  "revisions",
  "raw_bytes",
  "stored_bytes",
  "ratio",
  "blobs",
  "max_blob_reads_per_read",
  "max_decodes_per_read",
  "mean_decoded_bytes_per_read",
  "read_ms_p50",
  "read_ms_p99",
  "write_ms_p50",
  "baseline_per_rev_gzip_ratio",
  "baseline_block16m_brotli9_ratio",
  "baseline_git_pack_ratio",
] as const;

export type StoreRow = {
  history: string;
  baseline_git_pack_ratio: number | null;
} & { [K in Exclude<(typeof STORE_ROW_KEYS)[number], "history" | "baseline_git_pack_ratio">]: number };

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

export interface BenchOptions {
  /** Seed for the read sample and order. */
  seed: number;
  /** Compute the git baseline (if git is installed). */
  git?: boolean;
  log?: (line: string) => void;
}

/** What `GET /api/pages/{key}/stats` returns (ArchiveClient.stats types a subset). */
interface PageStatsBody {
  revisions: number;
  rawBytes: number;
  blobs: number;
  blobBytes: number;
  metadataBytes: number;
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));
/** Ratios keep 4 significant digits: 0.001294 stays readable as 0.129 %. */
const sig4 = (x: number) => Number(x.toPrecision(4));

/** Splits off the first revision to learn the page's key, then yields it and the rest. */
async function withFirst(revs: AsyncGenerator<ExportRevision>): Promise<{ first: ExportRevision; all: AsyncGenerator<ExportRevision> }> {
  const head = await revs.next();
  if (head.done) throw new HistoryInputError("the export holds no revisions");
  const first = head.value;
  async function* all() {
    yield first;
    yield* revs;
  }
  return { first, all: all() };
}

/** Imports one history with progress lines on `log` at most every few seconds. */
async function timedImport(client: ArchiveClient, key: string, revs: AsyncIterable<Omit<ExportRevision, "parentId">>, name: string, log: (l: string) => void): Promise<ImportResult> {
  let lastLog = performance.now();
  const started = lastLog;
  return importHistory(client, key, revs, {
    onProgress: ({ revisions, rawBytes }) => {
      const now = performance.now();
      if (now - lastLog < 5000) return;
      lastLog = now;
      log(`bench store: ${name}: imported ${revisions} revisions, ${(rawBytes / 1e6).toFixed(1)} MB, in ${((now - started) / 1000).toFixed(0)} s`);
    },
  });
}

export async function benchHistory(file: string, options: BenchOptions): Promise<StoreRow> {
  const log = options.log ?? (() => undefined);
  const name = historyName(file);
  const archive = await startLocalArchive();
  let imported: ImportResult;
  let stats: PageStatsBody;
  let key: string;
  let reads: Awaited<ReturnType<typeof measureReads>>;
  try {
    const client = new ArchiveClient({ url: archive.url, token: archive.token, attempts: 1 });
    const { first, all } = await withFirst(exportRevisions(file));
    const title = normalizeTitle(first.title);
    if (!title.ok) throw new HistoryInputError(`${file}: ${title.reason}`);
    key = title.key;
    log(`bench store: ${name}: importing page ${key} into a local Worker at ${archive.url}`);
    imported = await timedImport(client, key, all, name, log);
    log(`bench store: ${name}: imported ${imported.revisions.length} revisions (${imported.rawBytes} bytes) in ${imported.batches} requests, ${imported.seconds.toFixed(1)} s`);
    stats = (await client.stats(key)) as unknown as PageStatsBody;
    if (stats.revisions !== imported.revisions.length || stats.rawBytes !== imported.rawBytes) {
      throw new Error(`page ${key}: the archive reports ${stats.revisions} revisions / ${stats.rawBytes} bytes, the import sent ${imported.revisions.length} / ${imported.rawBytes}`);
    }
    log(`bench store: ${name}: stored ${stats.blobBytes} blob bytes in ${stats.blobs} live blobs + ${stats.metadataBytes} bytes of SQLite`);
    const readStarted = performance.now();
    reads = await measureReads(archive.url, key, imported.revisions, { seed: options.seed });
    log(`bench store: ${name}: read and verified ${reads.reads} revisions in ${((performance.now() - readStarted) / 1000).toFixed(1)} s`);
  } finally {
    await archive.dispose();
  }

  const baselineStarted = performance.now();
  const baselines = await computeBaselines(file, options.git ?? true);
  log(`bench store: ${name}: baselines in ${((performance.now() - baselineStarted) / 1000).toFixed(1)} s${baselines.gitIdxBytes === null ? "" : ` (git .pack ${baselines.gitPackBytes} bytes, .idx ${baselines.gitIdxBytes} bytes not counted)`}`);
  if (baselines.rawBytes !== imported.rawBytes) {
    throw new Error(`${file}: the baseline pass read ${baselines.rawBytes} bytes of text, the import ${imported.rawBytes}`);
  }

  const raw = imported.rawBytes;
  const stored = stats.blobBytes + stats.metadataBytes;
  return {
    history: name,
    revisions: imported.revisions.length,
    raw_bytes: raw,
    stored_bytes: stored,
    ratio: sig4(stored / raw),
    blobs: stats.blobs,
    max_blob_reads_per_read: reads.maxBlobReads,
    max_decodes_per_read: reads.maxDecodes,
    mean_decoded_bytes_per_read: Math.round(reads.meanDecodedBytes),
    read_ms_p50: round(percentile(reads.latenciesMs, 50), 3),
    read_ms_p99: round(percentile(reads.latenciesMs, 99), 3),
    write_ms_p50: round(percentile(imported.writeMsPerRevision, 50), 3),
    baseline_per_rev_gzip_ratio: sig4(baselines.gzipBytes / raw),
    baseline_block16m_brotli9_ratio: sig4(baselines.brotliBytes / raw),
    baseline_git_pack_ratio: baselines.gitPackBytes === null ? null : sig4(baselines.gitPackBytes / raw),
  };
}

async function computeBaselines(file: string, git: boolean): Promise<BaselineFigures> {
  const baselines = await Baselines.start({ git });
  if (git && !baselines.hasGit) process.stderr.write("bench store: git is not installed; baseline_git_pack_ratio is null\n");
  try {
    for await (const rev of exportRevisions(file)) await baselines.add(rev.id, rev.text);
    return await baselines.finish();
  } catch (err) {
    baselines.dispose();
    throw err;
  }
}

/** Revisions in the short and the long synthetic history. */
export const LENGTH_CHECK_REVISIONS = { short: 10, long: 10_000 } as const;
/** Timed reads per page in the length check, made in alternating runs of {@link LENGTH_CHECK_RUN}. */
export const LENGTH_CHECK_READS = 400;
const LENGTH_CHECK_RUN = 50;

/**
 * Imports a 10-revision and a 10,000-revision synthetic page (synthetic.ts)
 * into one local Worker and compares their read p50. Each page gets a warm-up,
 * then {@link LENGTH_CHECK_READS} timed reads in a seeded random order (the
 * short page's 10 revisions over and over, the long page's random revisions,
 * all verified), alternating between the pages every
 * {@link LENGTH_CHECK_RUN} reads so that drifting load on the machine falls on
 * both alike.
 */
export async function lengthCheck(options: BenchOptions & { longRevisions?: number }): Promise<LengthCheckRow> {
  const log = options.log ?? (() => undefined);
  const archive = await startLocalArchive();
  try {
    const client = new ArchiveClient({ url: archive.url, token: archive.token, attempts: 1 });
    const pages: Array<{ key: string; order: RevisionRef[]; ms: number[] }> = [];
    const long = options.longRevisions ?? LENGTH_CHECK_REVISIONS.long;
    for (const count of [LENGTH_CHECK_REVISIONS.short, long]) {
      const title = normalizeTitle(`Bench length ${count}`) as { title: string; key: string };
      const imported = await importHistory(client, title.key, syntheticHistory(title.title, count, options.seed), {
        onProgress: ({ revisions }) => {
          if (revisions % 1280 === 0) log(`bench store: length check: ${title.key}: imported ${revisions} revisions`);
        },
      });
      log(`bench store: length check: ${title.key}: ${imported.revisions.length} revisions, ${imported.rawBytes} bytes, imported in ${imported.seconds.toFixed(1)} s`);
      const rand = mulberry32(options.seed + count);
      const order: RevisionRef[] = [];
      while (order.length < LENGTH_CHECK_READS) order.push(...sampleIndices(imported.revisions.length, LENGTH_CHECK_READS, rand).map((i) => imported.revisions[i]!));
      pages.push({ key: title.key, order: order.slice(0, LENGTH_CHECK_READS), ms: [] });
    }
    for (const page of pages) for (const rev of page.order.slice(0, WARMUP_READS)) await readRevision(archive.url, page.key, rev);
    for (let at = 0; at < LENGTH_CHECK_READS; at += LENGTH_CHECK_RUN) {
      for (const page of pages) {
        for (const rev of page.order.slice(at, at + LENGTH_CHECK_RUN)) page.ms.push((await readRevision(archive.url, page.key, rev)).ms);
      }
    }
    const [p50Short, p50Long] = pages.map((p) => percentile(p.ms, 50)) as [number, number];
    const row = { check: "read_p50_vs_length", p50_ms_10: round(p50Short, 3), [`p50_ms_${long}`]: round(p50Long, 3), ratio: round(p50Long / p50Short, 3) };
    return row as unknown as LengthCheckRow;
  } finally {
    await archive.dispose();
  }
}
