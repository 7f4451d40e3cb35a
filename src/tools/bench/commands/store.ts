/**
 * `palimpsest bench store FILE...`: imports each MediaWiki export into the
 * project's own Worker running locally (workerd, via wrangler; a fresh
 * temporary store per history), reads revisions back and prints storage
 * (blobs + SQLite), read cost (blob reads, decode amplification) and
 * latency, import throughput, the baselines computed in the same run (gzip,
 * brotli, git pack + idx, xz -9e) and the storage targets (src/tools/bench/store/targets.ts:
 * at most half of git's pack or 1.25 × xz's bytes, at most 2 blob reads and
 * 16 × decode amplification per read).
 * `--read-scaling` adds one row comparing read latency on synthetic
 * histories of 10 to 10,000 revisions. An export of many pages is measured
 * as a whole wiki: a row per page and one for the wiki, with MediaWiki 1.39
 * beside it (`--no-mediawiki` leaves it out). See src/tools/bench/store/run.ts
 * and read-scaling.ts for every field.
 *
 * Ratios are fractions of the raw text: 0.0052 means 0.52 %.
 *
 * @example
 * npx palimpsest bench store ../shared/corpus/histories/bip-0340.xml.br
 * npx palimpsest bench store --json --read-scaling ../shared/corpus/histories/*.xml.br
 * npx palimpsest bench store --json --read-scaling --read-scaling-lengths 10,100 --read-scaling-reads 100
 * npx palimpsest bench store --json ../shared/corpus/wikis/rust-rfcs-wiki.xml.br
 * npx palimpsest bench store --json --worker-from 6f4ba5f ../shared/corpus/histories/bip-0340.xml.br
 */
import type { Command } from "commander";
import { fixed, percent, printLine, rowPrinter, tableHeader, tableLine, type Column } from "../harness/index.ts";
import { checkHistoryFiles, overHistories } from "./histories.ts";
import type { ReadScalingRow, StoreRow, WikiRow } from "../store/run.ts";
import { logLine, UsageError, parseIntOption } from "../../local/output.ts";

interface StoreFlags {
  json?: boolean;
  readScaling?: boolean;
  readScalingLengths?: number[];
  readScalingReads?: number;
  seed: number;
  git: boolean;
  xz: boolean;
  mediawiki: boolean;
  readSample?: number;
  coldReads?: number;
  workerFrom?: string;
}

const yesNo = (x: boolean | null) => (x === null ? "-" : x ? "yes" : "no");

const COLUMNS: Column<StoreRow>[] = [
  ["history", -22, (r) => r.history],
  ["revs", 5, (r) => String(r.revisions)],
  ["raw MB", 7, (r) => fixed(r.raw_bytes / 1e6, 1)],
  ["blob KB", 7, (r) => fixed(r.blob_bytes / 1e3, 0)],
  ["sql KB", 6, (r) => fixed(r.sqlite_bytes / 1e3, 0)],
  ["ratio", 7, (r) => percent(r.ratio)],
  ["gzip/rev", 8, (r) => percent(r.baseline_per_rev_gzip_ratio)],
  ["br9 16M", 7, (r) => percent(r.baseline_block16m_brotli9_ratio)],
  ["git p+i", 7, (r) => percent(r.baseline_git_pack_ratio)],
  ["xz -9e", 7, (r) => percent(r.baseline_xz_ratio)],
  ["target KB", 9, (r) => fixed(r.target_bytes === null ? null : r.target_bytes / 1e3, 0)],
  ["bytes ok", 8, (r) => yesNo(r.target_bytes_met)],
  ["blob rd", 7, (r) => String(r.max_blob_reads_per_read)],
  ["amp max", 7, (r) => fixed(r.max_decode_amplification, 1)],
  ["amp avg", 7, (r) => fixed(r.mean_decode_amplification, 1)],
  ["reads ok", 8, (r) => yesNo(r.target_reads_met)],
  ["rd p50", 7, (r) => fixed(r.read_ms_p50, 1)],
  ["rd p99", 7, (r) => fixed(r.read_ms_p99, 1)],
  ["wr p50", 6, (r) => fixed(r.write_ms_p50, 1)],
  ["imp rev/s", 9, (r) => fixed(r.import_revisions_per_s, 1)],
  ["imp MB/s", 8, (r) => fixed(r.import_mb_per_s, 2)],
];

type ScalingLength = ReadScalingRow["lengths"][number];
const SCALING_COLUMNS: Column<ScalingLength>[] = [
  ["revisions", 9, (l) => String(l.revisions)],
  ["rev KB", 6, (l) => fixed(l.mean_revision_bytes / 1e3, 1)],
  ["rd p50", 7, (l) => fixed(l.p50_ms, 2)],
  ["rd p99", 7, (l) => fixed(l.p99_ms, 2)],
  ["blob rd", 7, (l) => String(l.max_blob_reads)],
  ["amp max", 7, (l) => fixed(l.max_decode_amplification, 1)],
];

function scalingTable(row: ReadScalingRow): string[] {
  const [shortest, longest] = [row.lengths[0]!, row.lengths.at(-1)!];
  return [
    `read scaling (${row.reads_per_length} random reads per history length, ms):`,
    tableHeader(SCALING_COLUMNS),
    ...row.lengths.map((l) => tableLine(SCALING_COLUMNS, l)),
    `p50 at ${longest.revisions} / p50 at ${shortest.revisions}: x${row.p50_ratio.toFixed(3)} (target within ±20 %: ${yesNo(row.target_met)})`,
  ];
}

/** A whole wiki's row as a table: one field a line (its page rows are JSON only). */
function wikiLines(row: WikiRow): string[] {
  return [
    `whole wiki ${row.wiki} (page rows with --json):`,
    ...Object.entries(row).map(([field, value]) => `  ${field.padEnd(44)} ${value === null ? "-" : String(value)}`),
  ];
}

/** `10,100,1000` → [10, 100, 1000]: at least two distinct lengths. */
function parseLengths(value: string): number[] {
  const parse = parseIntOption("read-scaling-lengths", 1, 100_000);
  const lengths = [...new Set(value.split(",").map((s) => parse(s.trim())))];
  if (lengths.length < 2)
    throw new UsageError(
      `--read-scaling-lengths takes at least two distinct history lengths, e.g. 10,100; got "${value}"`,
    );
  return lengths.sort((a, b) => a - b);
}

async function store(files: string[], flags: StoreFlags): Promise<void> {
  if (files.length === 0 && !flags.readScaling)
    throw new UsageError(
      "name at least one MediaWiki export (e.g. ../shared/corpus/histories/bip-0340.xml.br), or pass --read-scaling",
    );
  if (!flags.readScaling && (flags.readScalingLengths || flags.readScalingReads))
    throw new UsageError("--read-scaling-lengths and --read-scaling-reads go with --read-scaling");
  checkHistoryFiles(files);
  const out = rowPrinter(flags.json ?? false, COLUMNS);
  if (files.length > 0) {
    out.header();
    if (!flags.json)
      logLine(
        "bench store: ratios are stored bytes / raw text bytes; amp is decoded bytes / the revision's bytes; times are ms per revision",
      );
  }
  // Imported when run: it loads wrangler, which takes seconds.
  const { benchStore } = await import("../store/run.ts");
  await overHistories(() =>
    benchStore(files, {
      seed: flags.seed,
      git: flags.git,
      xz: flags.xz,
      readSample: flags.readSample,
      mediawiki: flags.mediawiki,
      coldReads: flags.coldReads,
      workerFrom: flags.workerFrom,
      readScaling: flags.readScaling ? { lengths: flags.readScalingLengths, reads: flags.readScalingReads } : undefined,
      log: logLine,
      onRow: out.row,
      onWikiPageRow: (row) => flags.json && printLine(JSON.stringify(row)),
      onWikiRow: (row) =>
        flags.json ? printLine(JSON.stringify(row)) : wikiLines(row).forEach((line) => printLine(line)),
      onReadScaling: (row) =>
        flags.json ? printLine(JSON.stringify(row)) : scalingTable(row).forEach((line) => printLine(line)),
    }),
  );
}

/** Adds `store` to the `bench` command group. */
export function registerBenchStore(bench: Command): void {
  bench
    .command("store")
    .description(
      "import MediaWiki exports into a local Worker and measure storage, read cost and latency, import throughput against gzip, brotli, git and xz baselines, and whether it meets the targets (bytes at most max(0.5 × git pack + idx, 1.25 × xz), at most 2 blob reads and 16 × decode amplification per read); a whole wiki also against MediaWiki 1.39",
    )
    .argument(
      "[files...]",
      "MediaWiki exports (plain, .gz, .br or .bz2): one page history each, or a whole wiki (more than one page)",
    )
    .option("--json", "one JSON object per history, per page and wiki of a whole wiki (then one for --read-scaling)")
    .option("--read-scaling", "also compare read p50/p99 on synthetic histories of 10, 100, 1,000 and 10,000 revisions")
    .option(
      "--read-scaling-lengths <list>",
      "comma-separated history lengths for --read-scaling (at least two)",
      parseLengths,
    )
    .option(
      "--read-scaling-reads <n>",
      "timed reads per history length for --read-scaling (default 400)",
      parseIntOption("read-scaling-reads", 1, 100_000),
    )
    .option(
      "--read-sample <n>",
      "revisions read back per history, plus the first and the last; of a whole wiki, pages read cold and warm (default 400)",
      parseIntOption("read-sample", 1, 1_000_000),
    )
    .option(
      "--cold-reads <n>",
      "revisions of a single history read cold (the Worker and MediaWiki's server restarted before each) and warm on each side (default 20)",
      parseIntOption("cold-reads", 1, 100_000),
    )
    .option(
      "--worker-from <rev-or-dir>",
      "measure another checkout's Worker with this harness: a git revision of this repository or a folder holding a checkout",
    )
    .option("--seed <n>", "seed for the read sample and order", parseIntOption("seed", 0, 2 ** 31 - 1), 1)
    .option("--no-git", "skip the git pack baseline (null)")
    .option("--no-xz", "skip the xz baseline (null)")
    .option("--no-mediawiki", "no MediaWiki beside a whole wiki or a history (its fields null)")
    .action((files: string[], flags: StoreFlags) => store(files, flags));
}
