/**
 * `bench store` on a whole wiki (an export of many pages): what the archive
 * stores for each page and in all, against xz of the wiki and of each page,
 * what one more one-revision page costs, how fast the wiki imports, and the
 * same wiki in MediaWiki 1.39 (importDump.php's speed and database, raw
 * reads) in the same run. The rows and their fields are listed in run.ts;
 * this module runs the phases, one after another, so that no timed phase
 * shares the machine with another:
 *
 * 1. untimed, while the local Worker starts: the baselines (baselines.ts
 *    WikiBaselines: solid over the wiki, and xz of each page alone), and the
 *    export written out as plain XML for importDump.php;
 * 2. the import, timed: page after page through the bench's importer
 *    (importer.ts, `palimpsest import`'s batches), one page at a time; then
 *    every page's stats;
 * 3. the one-revision page (one-revision-page.ts): the Worker stopped, what
 *    it stores measured, started again, the page written, stopped, measured;
 * 4. MediaWiki (mediawiki-baseline.ts), with the Worker stopped: a fresh wiki
 *    with the default settings loads the export with importDump.php, then
 *    another with `$wgCompressRevisions = true`;
 * 5. reads, on a Worker started afresh on the stored state and on the first
 *    wiki's server started afresh: a seeded sample of pages, one random
 *    revision of each, read cold on each side and then warm, verified by
 *    SHA-1 (details in run.ts); last, every revision of the wiki read once
 *    from the archive for its read cost (reads.ts).
 *
 * @example
 * await benchWiki("../shared/corpus/wikis/rust-rfcs-wiki.xml.br", { bundle, vars }, { seed: 1, onPageRow, onWikiRow });
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ArchiveClient } from "../../local/archive-client.ts";
import type { PageStatsBody } from "../../../wire.ts";
import { normalizeTitle } from "../../../page/title.ts";
import { mulberry32 } from "../../../lib/mulberry32.ts";
import { shuffle } from "../../../lib/sample.ts";
import { mbPerSecond, round, sig4, throttledLog } from "../harness/index.ts";
import { WikiBaselines, type BaselineFigures, type PageBaseline } from "./baselines.ts";
import { historyName, HistoryInputError } from "./history.ts";
import { importHistory, type RevisionRef } from "./importer.ts";
import {
  firstAnswer,
  matchRevisions,
  measureMediaWiki,
  mediaWikiWanted,
  readRaw,
  writePlainXml,
  type MediaWikiRuns,
  type SampledRead,
  type WikiRevisionId,
} from "./mediawiki-baseline.ts";
import { ONE_REVISION_PAGE_TITLE, oneRevision, stateGrowth, storedState } from "./one-revision-page.ts";
import { readInTurn, readRevision, READ_SAMPLE, ReadTally } from "./reads.ts";
import {
  COLD_WARM_READ_KEYS,
  coldWarmReadFields,
  MEDIAWIKI_IMPORT_KEYS,
  mediaWikiImportFields,
  ratioOf as ratio,
} from "./side-by-side.ts";
import { StateWorker, type WorkerSetup } from "./state-worker.ts";
import { exportPages } from "./wiki-export.ts";

export type { WorkerSetup } from "./state-worker.ts";

/** What a page, or the whole wiki, stored against its raw bytes and against xz: the same fields in both rows. */
const STORED_KEYS = ["raw_bytes", "stored_bytes", "sqlite_bytes", "blob_bytes", "blobs", "ratio", "xz_bytes"] as const;

export const WIKI_PAGE_ROW_KEYS = ["row", "wiki", "title", "revisions", ...STORED_KEYS, "ratio_to_xz"] as const;

export const WIKI_ROW_KEYS = [
  "row",
  "wiki",
  "pages",
  "revisions",
  ...STORED_KEYS,
  "xz_per_page_bytes",
  "ratio_to_xz",
  "ratio_to_xz_per_page",
  "baseline_xz_ratio",
  "baseline_xz_per_page_ratio",
  "baseline_per_rev_gzip_ratio",
  "baseline_block16m_brotli9_ratio",
  "one_revision_page_bytes",
  "one_revision_page_sqlite_bytes",
  "one_revision_page_blob_bytes",
  "one_revision_page_directory_bytes",
  "one_revision_page_other_bytes",
  "import_seconds",
  "import_pages_per_s",
  "import_revisions_per_s",
  "import_mb_per_s",
  ...MEDIAWIKI_IMPORT_KEYS,
  ...COLD_WARM_READ_KEYS,
  "reads_all",
  "max_blob_reads_per_read",
  "max_decodes_per_read",
  "mean_decode_amplification",
  "max_decode_amplification",
] as const;

type Fields<K extends readonly string[]> = Record<K[number], number | string | boolean | null>;
export type WikiPageRow = Fields<typeof WIKI_PAGE_ROW_KEYS> & { row: "page" };
export type WikiRow = Fields<typeof WIKI_ROW_KEYS> & { row: "wiki" };

export interface WikiBenchOptions {
  seed: number;
  /** Compute the xz baselines (if xz is installed). */
  xz?: boolean;
  /** Measure MediaWiki beside the archive (if it is installed). */
  mediawiki?: boolean;
  /** Pages read cold and warm on each side, one revision each; default reads.ts's READ_SAMPLE, at most every page. */
  readSample?: number;
  log?: (line: string) => void;
  onPageRow(row: WikiPageRow): void;
  onWikiRow(row: WikiRow): void;
}

/** One page as imported: its key, and what the read phase needs of its revisions. */
interface ImportedPage {
  title: string;
  key: string;
  revisions: RevisionRef[];
  rawBytes: number;
}

function keyOf(title: string): string {
  const normal = normalizeTitle(title);
  if (!normal.ok) throw new HistoryInputError(`page ${JSON.stringify(title)}: ${normal.reason}`);
  return normal.key;
}

async function baselinesOf(
  file: string,
  xz: boolean,
): Promise<{ whole: BaselineFigures; pages: PageBaseline[]; hasXz: boolean }> {
  const baselines = await WikiBaselines.start({ xz });
  try {
    for await (const page of exportPages(file)) await baselines.addPage(page.title, page.revisions);
    return { ...(await baselines.finish()), hasXz: baselines.hasXz };
  } catch (err) {
    baselines.dispose();
    throw err;
  }
}

/** Every page, one after another, through the bench's importer. */
async function importWiki(
  client: ArchiveClient,
  file: string,
  log: (line: string) => void,
): Promise<{ pages: ImportedPage[]; seconds: number }> {
  const pages: ImportedPage[] = [];
  const progress = throttledLog(log);
  let revisions = 0;
  const started = performance.now();
  for await (const page of exportPages(file)) {
    const key = keyOf(page.title);
    const result = await importHistory(client, key, page.revisions, { wikiPageId: page.wikiPageId });
    pages.push({ title: page.title, key, revisions: result.revisions, rawBytes: result.rawBytes });
    revisions += result.revisions.length;
    progress(() => `imported ${pages.length} pages, ${revisions} revisions`);
  }
  return { pages, seconds: (performance.now() - started) / 1000 };
}

/**
 * One random revision of each of `size` random pages. With MediaWiki, only revisions the wiki
 * holds (matchRevisions), so both sides read the same revisions.
 */
function sampleReads(
  pages: readonly ImportedPage[],
  size: number,
  seed: number,
  ids: Map<string, WikiRevisionId[]> | null,
): SampledRead[] {
  const rand = mulberry32(seed);
  const candidates = pages.map((page) =>
    ids === null ? page.revisions.map((rev) => ({ key: page.key, rev, wiki: null })) : matchRevisions(page, ids),
  );
  return shuffle(
    candidates.filter((c) => c.length > 0),
    rand,
  )
    .slice(0, size)
    .map((c) => c[Math.floor(rand() * c.length)]!);
}

export async function benchWiki(file: string, setup: WorkerSetup, options: WikiBenchOptions): Promise<void> {
  const name = historyName(file);
  const log = (line: string) => options.log?.(`bench store: ${name}: ${line}`);
  const withMediaWiki = mediaWikiWanted(options.mediawiki);
  const scratch = mkdtempSync(join(tmpdir(), "palimpsest-bench-wiki-"));
  const xml = join(scratch, "wiki.xml");
  const worker = new StateWorker(setup, join(scratch, "state"));
  let mediawiki: MediaWikiRuns | null = null;
  try {
    // Phase 1: the untimed passes over the export, while the Worker starts.
    const untimed = Promise.all([
      baselinesOf(file, options.xz ?? true),
      withMediaWiki ? writePlainXml(file, xml) : null,
    ]);
    const [started, done] = await Promise.allSettled([worker.start(), untimed]);
    if (started.status === "rejected") throw started.reason;
    if (done.status === "rejected") throw done.reason;
    let client = started.value;
    const baselines = done.value[0];
    if ((options.xz ?? true) && !baselines.hasXz)
      process.stderr.write("bench store: xz is not installed; the xz fields and their ratios are null\n");
    log(`baselines: ${baselines.pages.length} pages, xz ${baselines.whole.xzBytes} bytes`);

    // Phase 2: the import, then every page's stats.
    const imported = await importWiki(client, file, log);
    const revisionCount = imported.pages.reduce((n, p) => n + p.revisions.length, 0);
    log(`imported ${imported.pages.length} pages, ${revisionCount} revisions in ${imported.seconds.toFixed(1)} s`);
    const stats: PageStatsBody[] = [];
    for (const [i, page] of imported.pages.entries()) {
      const s = await client.stats(page.key);
      const baseline = baselines.pages[i];
      if (s.revisions !== page.revisions.length || s.rawBytes !== page.rawBytes)
        throw new Error(
          `page ${page.key}: the archive reports ${s.revisions} revisions / ${s.rawBytes} bytes, the import sent ${page.revisions.length} / ${page.rawBytes}`,
        );
      if (baseline?.title !== page.title || baseline.rawBytes !== page.rawBytes)
        throw new Error(`page ${page.key}: the baseline pass and the import read different pages or texts`);
      stats.push(s);
    }

    // Phase 3: one more page, of one revision.
    await worker.stop();
    const before = await storedState(worker.persistDir);
    client = await worker.start();
    const oneKey = keyOf(ONE_REVISION_PAGE_TITLE);
    const maxId = Math.max(...imported.pages.flatMap((p) => p.revisions.map((r) => r.id)));
    const [oneRef] = (await importHistory(client, oneKey, [oneRevision(maxId + 1)])).revisions;
    const one = await client.stats(oneKey);
    await worker.stop();
    const growth = stateGrowth(before, await storedState(worker.persistDir));
    const directoryBytes = growth.byClass.get("PageDirectory") ?? 0;
    log(
      `one-revision page: stored state grew ${growth.totalBytes} bytes (${[...growth.byClass].map(([k, v]) => `${k} ${v}`).join(", ")}); its stats: SQLite ${one.metadataBytes}, blobs ${one.blobBytes}`,
    );

    // Phase 4: MediaWiki, the Worker stopped.
    if (withMediaWiki) mediawiki = await measureMediaWiki(xml, imported.pages, log);

    // Phase 5: reads, cold then warm on each side, on servers started afresh.
    const sample = sampleReads(
      imported.pages,
      Math.min(options.readSample ?? READ_SAMPLE, imported.pages.length),
      options.seed,
      mediawiki?.ids ?? null,
    );
    client = await worker.start();
    // The Worker's own start-up (its isolate, the codec's wasm) is paid on a page outside the sample.
    await readRevision(client, oneKey, oneRef!);
    const { ms: cold, hops: coldHops } = await readInTurn(client, sample);
    const mediaWikiCold: number[] = [];
    if (mediawiki !== null) {
      const wiki = mediawiki.wiki;
      await wiki.restartServer();
      // PHP's server's first answer, outside the sample.
      await firstAnswer(wiki);
      for (const s of sample) mediaWikiCold.push(await readRaw(wiki.url, s.wiki!));
    }
    const warmOrder = shuffle(sample, mulberry32(options.seed + 1));
    const { ms: warm, hops: warmHops } = await readInTurn(client, warmOrder);
    const mediaWikiWarm: number[] = [];
    if (mediawiki !== null) for (const s of warmOrder) mediaWikiWarm.push(await readRaw(mediawiki.wiki.url, s.wiki!));
    log(`read ${sample.length} revisions cold and warm on each side`);
    const tally = new ReadTally();
    for (const page of imported.pages)
      for (const rev of page.revisions) tally.add(rev, await readRevision(client, page.key, rev));
    const reads = tally.summary();
    log(`read and verified all ${reads.reads} revisions`);
    await worker.stop();

    // The rows.
    const pageRows: WikiPageRow[] = imported.pages.map((page, i) => {
      const s = stats[i]!;
      const stored = s.metadataBytes + s.blobBytes;
      const xzBytes = baselines.pages[i]!.xzBytes;
      return {
        row: "page",
        wiki: name,
        title: page.title,
        revisions: page.revisions.length,
        raw_bytes: page.rawBytes,
        stored_bytes: stored,
        sqlite_bytes: s.metadataBytes,
        blob_bytes: s.blobBytes,
        blobs: s.blobs,
        ratio: sig4(stored / page.rawBytes),
        xz_bytes: xzBytes,
        ratio_to_xz: ratio(stored, xzBytes),
      };
    });
    for (const row of pageRows) options.onPageRow(row);
    const sum = (key: "raw_bytes" | "sqlite_bytes" | "blob_bytes" | "blobs") =>
      pageRows.reduce((n, r) => n + (r[key] as number), 0);
    const raw = sum("raw_bytes");
    const stored = sum("sqlite_bytes") + sum("blob_bytes");
    const xzBytes = baselines.whole.xzBytes;
    const xzPerPage = baselines.hasXz ? baselines.pages.reduce((n, p) => n + (p.xzBytes ?? 0), 0) : null;
    const importRate = revisionCount / imported.seconds;
    options.onWikiRow({
      row: "wiki",
      wiki: name,
      pages: pageRows.length,
      revisions: revisionCount,
      raw_bytes: raw,
      stored_bytes: stored,
      sqlite_bytes: sum("sqlite_bytes"),
      blob_bytes: sum("blob_bytes"),
      blobs: sum("blobs"),
      ratio: sig4(stored / raw),
      xz_bytes: xzBytes,
      xz_per_page_bytes: xzPerPage,
      ratio_to_xz: ratio(stored, xzBytes),
      ratio_to_xz_per_page: ratio(stored, xzPerPage),
      baseline_xz_ratio: ratio(xzBytes, raw),
      baseline_xz_per_page_ratio: ratio(xzPerPage, raw),
      baseline_per_rev_gzip_ratio: sig4(baselines.whole.gzipBytes / raw),
      baseline_block16m_brotli9_ratio: sig4(baselines.whole.brotliBytes / raw),
      one_revision_page_bytes: growth.totalBytes,
      one_revision_page_sqlite_bytes: one.metadataBytes,
      one_revision_page_blob_bytes: one.blobBytes,
      one_revision_page_directory_bytes: directoryBytes,
      one_revision_page_other_bytes: growth.totalBytes - one.metadataBytes - one.blobBytes - directoryBytes,
      import_seconds: round(imported.seconds, 2),
      import_pages_per_s: sig4(pageRows.length / imported.seconds),
      import_revisions_per_s: sig4(importRate),
      import_mb_per_s: sig4(mbPerSecond(raw, imported.seconds)),
      ...mediaWikiImportFields(mediawiki, { storedBytes: stored, rawBytes: raw, revisionsPerSecond: importRate }),
      ...coldWarmReadFields({ sample: sample.length, cold, warm, coldHops, warmHops, mediaWikiCold, mediaWikiWarm }),
      reads_all: reads.reads,
      max_blob_reads_per_read: reads.maxBlobReads,
      max_decodes_per_read: reads.maxDecodes,
      mean_decode_amplification: sig4(reads.meanAmplification),
      max_decode_amplification: sig4(reads.maxAmplification),
    });
  } finally {
    await worker.stop();
    await mediawiki?.wiki.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
