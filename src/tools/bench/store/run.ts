/**
 * `bench store`: how well the archive stores real revision histories, and
 * what reading them back costs, measured through the very code the Worker
 * runs: each history is imported over HTTP into the project's own Worker
 * (`PageStore` Durable Object, KV blobs) running locally in workerd via
 * wrangler (src/tools/local/local-worker.ts, from one bundle per run, with the tiered
 * cache off so every read costs what the storage layout costs), then read
 * back over the public API.
 *
 * Per history: the baselines (baselines.ts: a pass over the export, sizes
 * only, nothing timed) while its Worker starts; then, with nothing else
 * running (so no phase's timings carry another's load), import (timed per
 * batch), stats and reads (verified, timed).
 *
 * Row fields (one JSON line per history):
 *
 * | field | meaning |
 * |---|---|
 * | history | file name without `.xml.br` etc. |
 * | revisions, raw_bytes | revisions imported and their UTF-8 text bytes |
 * | stored_bytes | blob_bytes + sqlite_bytes |
 * | blob_bytes | live blob bytes (`GET /api/pages/{key}/stats`: blobBytes) |
 * | sqlite_bytes | the page's SQLite database size after the import, `ctx.storage.sql.databaseSize` (stats: metadataBytes) |
 * | ratio | stored_bytes / raw_bytes, a fraction: 0.0052 means 0.52 % |
 * | blobs | live blobs |
 * | max_blob_reads_per_read, max_decodes_per_read | maxima over the reads of `x-read-cost`'s blob-reads and decodes, as the origin reports them (blobs a read needs, held parsed or not); the KV reads themselves are counted at the binding in test/workers/storage/blob-reads.integration.test.ts |
 * | mean_decoded_bytes_per_read, max_decoded_bytes_per_read | mean and maximum of `x-read-cost`'s decoded-bytes |
 * | mean_decode_amplification, max_decode_amplification | a read's decoded bytes / the byte size of the revision it returned, mean and maximum over the reads (reads.ts) |
 * | read_ms_p50, read_ms_p99 | wall-clock ms per `GET /page/{key}/{revid}` (request to full body), over random revisions after a warm-up (reads.ts) |
 * | write_ms_p50 | median over revisions of batch request time / revisions in the batch (importer.ts) |
 * | import_revisions_per_s, import_mb_per_s | revisions and raw MB (1e6 bytes) over the import's wall time: reading the export, batching and every request (importer.ts) |
 * | baseline_*_ratio | the same kind of fraction for the baselines (baselines.ts): per-revision gzip, 16 MiB-block brotli 9, git aggressive pack + idx (`git_pack`) and pack alone (`git_pack_only`), solid `xz -9e`; git's are null without git, xz's without xz |
 * | target_bytes | the storage byte target: max(0.5 × git pack + idx bytes, 1.25 × xz bytes), rounded down (targets.ts); null without git or xz |
 * | target_bytes_met | stored_bytes ≤ target_bytes (null when target_bytes is) |
 * | target_reads_met | max_blob_reads_per_read ≤ 2 and max_decode_amplification ≤ 16 (targets.ts) |
 * | mediawiki_import_revisions, _raw_bytes, _completed, _error, _seconds, _revisions_per_s | importDump.php of the history into a fresh MediaWiki 1.39 with install.php's settings and a content handler for the corpus's `html` model (mediawiki-baseline.ts HTML_MODEL_SETTING, without which 1.39 refuses the HTML histories), as for a whole wiki (the wiki row's fields below, mediawiki-baseline.ts) |
 * | mediawiki_db_bytes, mediawiki_db_import_bytes, mediawiki_db_ratio | its `wiki.sqlite` after the import, the growth the import made, and that / mediawiki_import_raw_bytes |
 * | mediawiki_compressed_* | the same with `$wgCompressRevisions = true`, into another fresh wiki |
 * | import_speed_ratio | import_revisions_per_s / mediawiki_import_revisions_per_s |
 * | ratio_to_mediawiki_db, ratio_to_mediawiki_compressed_db | ratio / mediawiki_db_ratio, / mediawiki_compressed_db_ratio |
 * | read_sample | revisions read cold and warm on each side (`coldReads`, default 20; at most those the wiki holds): seeded, the same revisions on both sides; if the wiki holds none, the archive's alone |
 * | read_cold_ms_p50, _p99 | the archive: before each read the Worker is stopped and started afresh on the stored state (no Durable Object running, nothing in their memory, no tier cache), its start-up paid by a read of another page (a one-revision page written after the history), then the revision read (history-beside.ts); the operating system's file cache is not dropped |
 * | read_warm_ms_p50, _p99 | the same revisions read again right after the last cold read, in another seeded order |
 * | read_cold_<hop>_ms_p50, read_warm_<hop>_ms_p50 | the median of each hop of those reads as the Worker's `Server-Timing` names it (src/http/server-timing.ts), for hop in origin, directory, locate, do, blob, decode, hash, encode (side-by-side.ts's READ_HOPS); over the reads that met the hop, null when none did (encode: with the tiers off no br body is made). Local workerd's clock ticks in whole milliseconds, so a hop under 1 ms reads 0 or 1 |
 * | mediawiki_read_cold_ms_p50, _p99 | `index.php?action=raw&oldid=N`, `php -S` started afresh before each read and its first answer paid on the Main Page (as for a whole wiki: no OPcache, no APCu) |
 * | mediawiki_read_warm_ms_p50, _p99 | the same revisions read again, in the archive's warm order |
 *
 * The read_ms_* fields are the warm reads of many revisions (readSample) made right after the import;
 * read_cold_* and read_warm_* are the fewer reads set beside MediaWiki's. Every mediawiki_* field (and
 * the ratios to them) is null when MediaWiki is not installed or with `mediawiki: false`
 * (`--no-mediawiki`); read_cold_* and read_warm_* are then over random revisions of the archive alone.
 *
 * `workerFrom` (`--worker-from REV-OR-DIR`) measures another checkout's Worker (bundled from that
 * checkout with its wrangler.toml, worker-source.ts) with this harness, so a before/after comparison
 * differs only in the Worker measured.
 *
 * The targets are fields of the history's own row (not a row of their own),
 * so one line per history says both what was measured and whether it meets
 * the target. With `readScaling`, one more row follows the histories
 * (read-scaling.ts), told apart by its `"row": "read_scaling"`.
 *
 * A whole wiki. An export holding more than one page (wiki-export.ts tells)
 * is measured as a wiki (wiki.ts runs it): its pages imported one after
 * another into one fresh Worker, and MediaWiki 1.39 beside it in the same
 * run. One row per page (`"row": "page"`), then one for the wiki
 * (`"row": "wiki"`). Ratios are fractions, as above.
 *
 * Page rows:
 *
 * | field | meaning |
 * |---|---|
 * | row, wiki, title | `"page"`, the file's name, the page's title as the export gives it |
 * | revisions, raw_bytes | the page's revisions and their UTF-8 text bytes |
 * | sqlite_bytes, blob_bytes, blobs | the page's stats after the import: metadataBytes (its SQLite database, `ctx.storage.sql.databaseSize`), blobBytes, blobs |
 * | stored_bytes, ratio | sqlite_bytes + blob_bytes, and that / raw_bytes |
 * | xz_bytes, ratio_to_xz | `xz -9e` of the page's revisions concatenated, compressed alone (baselines.ts), and stored_bytes / that; null without xz |
 *
 * The wiki row:
 *
 * | field | meaning |
 * |---|---|
 * | row, wiki, pages, revisions, raw_bytes | `"wiki"`, the file's name, and the sums over the page rows |
 * | sqlite_bytes, blob_bytes, blobs, stored_bytes | the sums of the page rows' fields (stored_bytes = sqlite_bytes + blob_bytes) |
 * | ratio | stored_bytes / raw_bytes |
 * | xz_bytes, ratio_to_xz | solid `xz -9e` of every revision of the wiki concatenated in the export's order, and stored_bytes / that |
 * | xz_per_page_bytes, ratio_to_xz_per_page | the sum of the page rows' xz_bytes, and stored_bytes / that |
 * | baseline_xz_ratio, baseline_xz_per_page_ratio, baseline_per_rev_gzip_ratio, baseline_block16m_brotli9_ratio | those baselines / raw_bytes (gzip and brotli as for a history, over the whole wiki; no git) |
 * | one_revision_page_bytes | what one more page of one 1,024-byte revision adds, written after the wiki (one-revision-page.ts): the growth of every Durable Object's SQLite database (its size, as databaseSize counts it) and of KV's values in the local Worker's state |
 * | one_revision_page_sqlite_bytes, _blob_bytes | its parts that are the page's own: its stats' metadataBytes and blobBytes |
 * | one_revision_page_directory_bytes, _other_bytes | the growth of the PageDirectory's databases, and the rest (other Durable Objects a write touches, and any difference between the stats and the files) |
 * | import_seconds, import_pages_per_s, import_revisions_per_s, import_mb_per_s | the import's wall time (reading the export, batching as `palimpsest import` does, every request; pages one at a time), and pages, revisions and raw MB over it |
 * | mediawiki_import_revisions, _completed, _error | importDump.php into a fresh MediaWiki 1.39 on SQLite with install.php's settings (mediawiki-baseline.ts): revisions the wiki then holds, whether the script completed, and if not the exception it stopped on (the last line of its output naming an exception or error; null if it completed) |
 * | mediawiki_import_raw_bytes | the raw text bytes of those revisions (the export's revisions the wiki holds, matched by page and SHA-1): raw_bytes when it completed |
 * | mediawiki_import_seconds, mediawiki_import_revisions_per_s | its wall time, and those revisions over it |
 * | mediawiki_db_bytes, mediawiki_db_import_bytes | its `wiki.sqlite` after the import, and the growth the import made |
 * | mediawiki_db_ratio | mediawiki_db_import_bytes / mediawiki_import_raw_bytes |
 * | mediawiki_compressed_* | the same with `$wgCompressRevisions = true` (each revision's text deflated alone), into another fresh wiki |
 * | import_speed_ratio | import_revisions_per_s / mediawiki_import_revisions_per_s |
 * | ratio_to_mediawiki_db, ratio_to_mediawiki_compressed_db | ratio / mediawiki_db_ratio, / mediawiki_compressed_db_ratio: bytes per raw byte against the wiki's for what each holds (stored_bytes / mediawiki_db_import_bytes when the import completed) |
 * | read_sample | pages read cold and warm on each side: one random revision of each of that many random pages (seeded), the same revisions on both sides (those the wiki holds) |
 * | read_cold_ms_p50, _p99 | the archive: each read the first of its page since the Worker was started afresh on the stored state (no Durable Object running, nothing in their memory, no tier cache; the Worker's own start-up paid by one read of another page first; the operating system's file cache is not dropped) |
 * | read_warm_ms_p50, _p99 | the same revisions read again right after, in another order |
 * | read_cold_<hop>_ms_p50, read_warm_<hop>_ms_p50 | as for a single history: each hop's median over those reads, from `Server-Timing` |
 * | mediawiki_read_cold_ms_p50, _p99 | `index.php?action=raw&oldid=N` from `php -S`, each read the first of its revision since the server was started afresh (its first answer paid by a read of the Main Page first); as the tests serve it, without OPcache or APCu, so no request keeps anything for the next and cold differs from warm only by the operating system's file cache |
 * | mediawiki_read_warm_ms_p50, _p99 | the same revisions read again, in the archive's warm order |
 * | reads_all, max_blob_reads_per_read, max_decodes_per_read, mean_decode_amplification, max_decode_amplification | every revision of the wiki read once from the archive, after the timed reads, and their read cost (reads.ts) |
 *
 * A read's time runs from sending the request to having the whole body, on
 * both sides, asked as identity (php -S sends no coding, and the local front
 * line would otherwise gzip every archive body on its way out, a cost of the
 * dev stack, not the archive's), and every body is checked by SHA-1. Every mediawiki_* field is
 * null when MediaWiki is not installed or with `mediawiki: false`.
 *
 * @example
 * await benchStore(["../shared/corpus/histories/bip-0340.xml.br"], { seed: 1, log: console.error, onRow: (row) => console.log(JSON.stringify(row)) });
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ArchiveClient } from "../../local/archive-client.ts";
import { startLocalWorker } from "../../local/local-worker.ts";
import { bundleWorker, type WorkerBundle } from "../../local/worker-bundle.ts";
import type { ExportRevision } from "../../import/mediawiki-reader.ts";
import { normalizeTitle } from "../../../page/title.ts";
import { mbPerSecond, percentile, round, sig4, throttledLog } from "../harness/index.ts";
import { benchVars, readTopology } from "../worker-config.ts";
import { Baselines, type BaselineFigures } from "./baselines.ts";
import { exportRevisions, historyName, HistoryInputError } from "./history.ts";
import { coldWarmHistory } from "./history-beside.ts";
import { importHistory, type ImportResult } from "./importer.ts";
import { measureMediaWiki, mediaWikiWanted, writePlainXml, type MediaWikiRuns } from "./mediawiki-baseline.ts";
import { ONE_REVISION_PAGE_TITLE, oneRevision } from "./one-revision-page.ts";
import { readScaling, type ReadScalingOptions, type ReadScalingRow } from "./read-scaling.ts";
import { measureReads, type ReadMeasurement } from "./reads.ts";
import {
  COLD_WARM_READ_KEYS,
  coldWarmReadFields,
  MEDIAWIKI_IMPORT_KEYS,
  mediaWikiImportFields,
  type ColdWarmReadFields,
  type MediaWikiImportFields,
} from "./side-by-side.ts";
import { StateWorker } from "./state-worker.ts";
import { bytesTarget, readsTargetMet } from "./targets.ts";
import { workerSource } from "./worker-source.ts";
import { benchWiki, type WikiPageRow, type WikiRow } from "./wiki.ts";
import { holdsManyPages } from "./wiki-export.ts";

export {
  READ_SCALING_KEYS,
  READ_SCALING_LENGTH_KEYS,
  READ_SCALING_LENGTHS,
  READ_SCALING_READS,
  type ReadScalingRow,
} from "./read-scaling.ts";
export { WIKI_PAGE_ROW_KEYS, WIKI_ROW_KEYS, type WikiPageRow, type WikiRow } from "./wiki.ts";

/** The fields that are null when git or xz is not installed. */
export const NULLABLE_NUMBER_KEYS = [
  "baseline_git_pack_ratio",
  "baseline_git_pack_only_ratio",
  "baseline_xz_ratio",
  "target_bytes",
] as const;

export const STORE_ROW_KEYS = [
  "history",
  "revisions",
  "raw_bytes",
  "stored_bytes",
  "blob_bytes",
  "sqlite_bytes",
  "ratio",
  "blobs",
  "max_blob_reads_per_read",
  "max_decodes_per_read",
  "mean_decoded_bytes_per_read",
  "max_decoded_bytes_per_read",
  "mean_decode_amplification",
  "max_decode_amplification",
  "read_ms_p50",
  "read_ms_p99",
  "write_ms_p50",
  "import_revisions_per_s",
  "import_mb_per_s",
  "baseline_per_rev_gzip_ratio",
  "baseline_block16m_brotli9_ratio",
  ...NULLABLE_NUMBER_KEYS,
  "target_bytes_met",
  "target_reads_met",
  ...MEDIAWIKI_IMPORT_KEYS,
  ...COLD_WARM_READ_KEYS,
] as const;

type NullableNumber = (typeof NULLABLE_NUMBER_KEYS)[number];

/** The fields set beside MediaWiki (side-by-side.ts), typed there. */
type BesideKey = keyof MediaWikiImportFields | keyof ColdWarmReadFields;

export type StoreRow = {
  history: string;
  target_bytes_met: boolean | null;
  target_reads_met: boolean;
} & { [K in NullableNumber]: number | null } & {
  [
    K in Exclude<
      (typeof STORE_ROW_KEYS)[number],
      "history" | "target_bytes_met" | "target_reads_met" | NullableNumber | BesideKey
    >
  ]: number;
} & MediaWikiImportFields &
  ColdWarmReadFields;

export interface StoreBenchOptions {
  /** Seed for the read sample and order. */
  seed: number;
  /** Compute the git baseline (if git is installed). */
  git?: boolean;
  /** Compute the xz baseline (if xz is installed). */
  xz?: boolean;
  /** Revisions read per history (plus the first and the last); default reads.ts's READ_SAMPLE. */
  readSample?: number;
  /** Run the read-scaling check after the histories (lengths and reads per length default to read-scaling.ts's). */
  readScaling?: Pick<ReadScalingOptions, "lengths" | "reads">;
  /** Measure MediaWiki beside a whole wiki and a single history (if it is installed); default true. */
  mediawiki?: boolean;
  /** Revisions of a single history read cold (the Worker restarted before each) and warm on each side; default history-beside.ts's COLD_READS. */
  coldReads?: number;
  /**
   * Measure another checkout's Worker with this harness: a folder holding it, or a git revision of
   * this repository (worker-source.ts). Default: this checkout's.
   */
  workerFrom?: string;
  log?: (line: string) => void;
  onRow(row: StoreRow): void;
  /** A whole wiki's rows: each page's, then the wiki's. */
  onWikiPageRow?(row: WikiPageRow): void;
  onWikiRow?(row: WikiRow): void;
  onReadScaling?(row: ReadScalingRow): void;
}

/** What every Worker of a run starts from. */
interface StoreSetup {
  bundle: WorkerBundle;
  vars: Record<string, unknown>;
}

/**
 * Each history on a fresh Worker with fresh storage, each whole wiki on one of its own, all from one
 * bundle; then the read-scaling check on one more.
 */
export async function benchStore(files: readonly string[], options: StoreBenchOptions): Promise<void> {
  const source = options.workerFrom === undefined ? null : await workerSource(options.workerFrom);
  if (source !== null)
    options.log?.(`bench store: the Worker of ${source.commit ?? source.root}, bundled from ${source.root}`);
  let bundle: WorkerBundle;
  let topology: Awaited<ReturnType<typeof readTopology>>;
  try {
    // Both take seconds and neither needs the other.
    [bundle, topology] = await Promise.all([
      bundleWorker({ root: source?.root }),
      readTopology(source === null ? undefined : join(source.root, "wrangler.toml")),
    ]);
  } catch (err) {
    source?.dispose();
    throw err;
  }
  // The tiered cache off: the read cost measured is the storage layout's, not a cache's.
  const setup = { bundle, vars: benchVars({ ...topology, enabled: false }) };
  try {
    for (const file of files) {
      if (await holdsManyPages(file)) {
        await benchWiki(
          file,
          { ...setup, logLevel: workerLogLevel() },
          {
            seed: options.seed,
            xz: options.xz,
            mediawiki: options.mediawiki,
            readSample: options.readSample,
            log: options.log,
            onPageRow: (row) => options.onWikiPageRow?.(row),
            onWikiRow: (row) => options.onWikiRow?.(row),
          },
        );
      } else options.onRow(await benchHistory(file, setup, options));
    }
    if (options.readScaling !== undefined) {
      const scaling = options.readScaling;
      const row = await withStoreWorker(setup, (client) =>
        readScaling(client, { seed: options.seed, log: options.log, ...scaling }),
      );
      options.onReadScaling?.(row);
    }
  } finally {
    bundle.dispose();
    source?.dispose();
  }
}

/**
 * Runs `use` on a throwaway Worker. `untimed` work runs while the Worker
 * starts and has ended before `use` begins, so it never loads what `use` times.
 */
async function withStoreWorker<T>(
  setup: StoreSetup,
  use: (client: ArchiveClient) => Promise<T>,
  untimed: Promise<unknown> = Promise.resolve(),
): Promise<T> {
  const [started, done] = await Promise.allSettled([
    startLocalWorker({ ...setup, logLevel: workerLogLevel() }),
    untimed,
  ]);
  if (started.status === "rejected") throw started.reason;
  try {
    if (done.status === "rejected") throw done.reason;
    // One attempt per request: a retried request would hide its failure and inflate its time.
    return await use(new ArchiveClient({ url: started.value.url, token: started.value.token, attempts: 1 }));
  } finally {
    await started.value.stop();
  }
}

/** PALIMPSEST_BENCH_LOG_LEVEL=debug shows wrangler's and workerd's own output (some of it on stdout, so not with --json). */
function workerLogLevel(): "debug" | "info" | "log" | "warn" {
  const level = process.env.PALIMPSEST_BENCH_LOG_LEVEL;
  return level === "debug" || level === "info" || level === "log" ? level : "warn";
}

/** Splits off the first revision to learn the page's key, then yields it and the rest. */
async function withFirst(
  revs: AsyncGenerator<ExportRevision>,
): Promise<{ first: ExportRevision; all: AsyncGenerator<ExportRevision> }> {
  const head = await revs.next();
  if (head.done) throw new HistoryInputError("the export holds no revisions");
  const first = head.value;
  async function* all() {
    yield first;
    yield* revs;
  }
  return { first, all: all() };
}

interface Stored {
  key: string;
  imported: ImportResult;
  stats: { blobs: number; blobBytes: number; metadataBytes: number };
  reads: ReadMeasurement;
}

/** Import, stats and reads of one history, on its own Worker. */
async function storeAndRead(
  file: string,
  client: ArchiveClient,
  options: StoreBenchOptions,
  log: (line: string) => void,
): Promise<Stored> {
  const { first, all } = await withFirst(exportRevisions(file));
  const title = normalizeTitle(first.title);
  if (!title.ok) throw new HistoryInputError(`${file}: ${title.reason}`);
  const key = title.key;
  log(`importing page ${key} into a local Worker at ${client.url}`);
  const started = performance.now();
  const progress = throttledLog(log);
  const imported = await importHistory(client, key, all, {
    onProgress: ({ revisions, rawBytes }) =>
      progress(
        () =>
          `imported ${revisions} revisions, ${(rawBytes / 1e6).toFixed(1)} MB, in ${((performance.now() - started) / 1000).toFixed(0)} s`,
      ),
  });
  log(
    `imported ${imported.revisions.length} revisions (${imported.rawBytes} bytes) in ${imported.batches} requests, ${imported.seconds.toFixed(1)} s`,
  );
  const stats = await client.stats(key);
  if (stats.revisions !== imported.revisions.length || stats.rawBytes !== imported.rawBytes) {
    throw new Error(
      `page ${key}: the archive reports ${stats.revisions} revisions / ${stats.rawBytes} bytes, the import sent ${imported.revisions.length} / ${imported.rawBytes}`,
    );
  }
  log(`stored ${stats.blobBytes} blob bytes in ${stats.blobs} live blobs + ${stats.metadataBytes} bytes of SQLite`);
  const readStarted = performance.now();
  const reads = await measureReads(client, key, imported.revisions, {
    seed: options.seed,
    sampleSize: options.readSample,
  });
  log(`read and verified ${reads.reads} revisions in ${((performance.now() - readStarted) / 1000).toFixed(1)} s`);
  return { key, imported, stats, reads };
}

/**
 * One history on a Worker of its own: the import, stats and reads (storeAndRead), then the
 * one-revision page other reads pay the Worker's start-up on, MediaWiki's imports with the Worker
 * stopped, and the reads cold and warm on both sides (history-beside.ts).
 */
async function benchHistory(file: string, setup: StoreSetup, options: StoreBenchOptions): Promise<StoreRow> {
  const name = historyName(file);
  const log = (line: string) => options.log?.(`bench store: ${name}: ${line}`);
  const withMediaWiki = mediaWikiWanted(options.mediawiki);
  const scratch = mkdtempSync(join(tmpdir(), "palimpsest-bench-history-"));
  const xml = join(scratch, "history.xml");
  const worker = new StateWorker({ ...setup, logLevel: workerLogLevel() }, join(scratch, "state"));
  let mediawiki: MediaWikiRuns | null = null;
  try {
    const started = performance.now();
    // Untimed, while the Worker starts: the baselines, and the export as plain XML for importDump.php.
    const untimed = Promise.all([
      computeBaselines(file, options).then((b) => {
        const git = b.gitIdxBytes === null ? "" : `, git .pack ${b.gitPackBytes} bytes + .idx ${b.gitIdxBytes} bytes`;
        const xz = b.xzBytes === null ? "" : `, xz ${b.xzBytes} bytes`;
        log(`baselines in ${((performance.now() - started) / 1000).toFixed(1)} s${git}${xz}`);
        return b;
      }),
      withMediaWiki ? writePlainXml(file, xml) : null,
    ]);
    const [client, done] = await Promise.allSettled([worker.start(), untimed]);
    if (client.status === "rejected") throw client.reason;
    if (done.status === "rejected") throw done.reason;
    const baselines = done.value[0];
    const stored = await storeAndRead(file, client.value, options, log);
    if (baselines.rawBytes !== stored.imported.rawBytes) {
      throw new Error(
        `${file}: the baseline pass read ${baselines.rawBytes} bytes of text, the import ${stored.imported.rawBytes}`,
      );
    }
    // A page of its own to pay each restarted Worker's start-up on before a cold read.
    const warmupTitle = normalizeTitle(ONE_REVISION_PAGE_TITLE);
    if (!warmupTitle.ok) throw new Error(`${ONE_REVISION_PAGE_TITLE}: ${warmupTitle.reason}`);
    const warmupKey = warmupTitle.key;
    const maxId = Math.max(...stored.imported.revisions.map((r) => r.id));
    const [warmupRev] = (await importHistory(client.value, warmupKey, [oneRevision(maxId + 1)])).revisions;
    await worker.stop();
    const page = { key: stored.key, revisions: stored.imported.revisions };
    if (withMediaWiki) mediawiki = await measureMediaWiki(xml, [page], log);
    const reads = await coldWarmHistory(worker, page, { key: warmupKey, rev: warmupRev! }, mediawiki, {
      seed: options.seed,
      sample: options.coldReads,
      log,
    });
    const row = storeRow(name, stored, baselines);
    return {
      ...row,
      ...mediaWikiImportFields(mediawiki, {
        storedBytes: row.stored_bytes,
        rawBytes: row.raw_bytes,
        revisionsPerSecond: stored.imported.revisions.length / stored.imported.seconds,
      }),
      ...coldWarmReadFields(reads),
    };
  } finally {
    await worker.stop();
    await mediawiki?.wiki.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

function storeRow(
  name: string,
  { imported, stats, reads }: Stored,
  baselines: BaselineFigures,
): Omit<StoreRow, BesideKey> {
  const raw = imported.rawBytes;
  const stored = stats.blobBytes + stats.metadataBytes;
  const fraction = (bytes: number | null) => (bytes === null ? null : sig4(bytes / raw));
  const gitBytes =
    baselines.gitPackBytes === null || baselines.gitIdxBytes === null
      ? null
      : baselines.gitPackBytes + baselines.gitIdxBytes;
  const target = bytesTarget(gitBytes, baselines.xzBytes);
  return {
    history: name,
    revisions: imported.revisions.length,
    raw_bytes: raw,
    stored_bytes: stored,
    blob_bytes: stats.blobBytes,
    sqlite_bytes: stats.metadataBytes,
    ratio: sig4(stored / raw),
    blobs: stats.blobs,
    max_blob_reads_per_read: reads.maxBlobReads,
    max_decodes_per_read: reads.maxDecodes,
    mean_decoded_bytes_per_read: Math.round(reads.meanDecodedBytes),
    max_decoded_bytes_per_read: reads.maxDecodedBytes,
    mean_decode_amplification: sig4(reads.meanAmplification),
    max_decode_amplification: sig4(reads.maxAmplification),
    read_ms_p50: round(percentile(reads.latenciesMs, 50), 3),
    read_ms_p99: round(percentile(reads.latenciesMs, 99), 3),
    write_ms_p50: round(percentile(imported.writeMsPerRevision, 50), 3),
    import_revisions_per_s: sig4(imported.revisions.length / imported.seconds),
    import_mb_per_s: sig4(mbPerSecond(raw, imported.seconds)),
    baseline_per_rev_gzip_ratio: sig4(baselines.gzipBytes / raw),
    baseline_block16m_brotli9_ratio: sig4(baselines.brotliBytes / raw),
    baseline_git_pack_ratio: fraction(gitBytes),
    baseline_git_pack_only_ratio: fraction(baselines.gitPackBytes),
    baseline_xz_ratio: fraction(baselines.xzBytes),
    target_bytes: target,
    target_bytes_met: target === null ? null : stored <= target,
    target_reads_met: readsTargetMet(reads.maxBlobReads, reads.maxAmplification),
  };
}

async function computeBaselines(file: string, options: { git?: boolean; xz?: boolean }): Promise<BaselineFigures> {
  const git = options.git ?? true;
  const xz = options.xz ?? true;
  const baselines = await Baselines.start({ git, xz });
  if (git && !baselines.hasGit)
    process.stderr.write(
      "bench store: git is not installed; baseline_git_pack_ratio, baseline_git_pack_only_ratio and target_bytes are null\n",
    );
  if (xz && !baselines.hasXz)
    process.stderr.write("bench store: xz is not installed; baseline_xz_ratio and target_bytes are null\n");
  try {
    for await (const rev of exportRevisions(file)) await baselines.add(rev.id, rev.text);
    return await baselines.finish();
  } catch (err) {
    baselines.dispose();
    throw err;
  }
}
