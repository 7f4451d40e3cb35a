/**
 * `palimpsest bench store FILE...`: imports each MediaWiki export into the
 * project's own Worker running locally (workerd, via wrangler; a fresh
 * temporary store per history), reads revisions back and prints storage ratio,
 * read cost and latency, write latency, and three baselines computed in the
 * same run. See src/bench/store/run.ts for every field.
 *
 * Ratios are fractions of the raw text: 0.0052 means 0.52 %.
 *
 * @example
 * npx palimpsest bench store ../shared/corpus/histories/bip-0340.xml.br
 * npx palimpsest bench store --json --length-check ../shared/corpus/histories/*.xml.br
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { fixed, percent, printLine, rowPrinter, type Column } from "../harness/index.ts";
import { HistoryInputError } from "../store/history.ts";
import type { LengthCheckRow, StoreRow } from "../store/run.ts";
import { logLine, UsageError, parseIntOption } from "../../local/output.ts";

interface StoreFlags {
  json?: boolean;
  lengthCheck?: boolean;
  seed: number;
  git: boolean;
  lengthCheckLong: number;
  readSample?: number;
}

const COLUMNS: Column<StoreRow>[] = [
  ["history", -24, (r) => r.history],
  ["revs", 5, (r) => String(r.revisions)],
  ["raw MB", 8, (r) => fixed(r.raw_bytes / 1e6, 1)],
  ["stored KB", 9, (r) => fixed(r.stored_bytes / 1e3, 0)],
  ["ratio", 8, (r) => percent(r.ratio)],
  ["blobs", 5, (r) => String(r.blobs)],
  ["blob rd", 7, (r) => String(r.max_blob_reads_per_read)],
  ["decodes", 7, (r) => String(r.max_decodes_per_read)],
  ["dec KB", 7, (r) => fixed(r.mean_decoded_bytes_per_read / 1e3, 0)],
  ["rd p50", 7, (r) => fixed(r.read_ms_p50, 2)],
  ["rd p99", 7, (r) => fixed(r.read_ms_p99, 2)],
  ["wr p50", 7, (r) => fixed(r.write_ms_p50, 2)],
  ["gzip/rev", 8, (r) => percent(r.baseline_per_rev_gzip_ratio)],
  ["br9 16M", 8, (r) => percent(r.baseline_block16m_brotli9_ratio)],
  ["git pack", 8, (r) => percent(r.baseline_git_pack_ratio)],
];

function checkLine(c: LengthCheckRow, long: number): string {
  const p50Long = (c as unknown as Record<string, number>)[`p50_ms_${long}`]!;
  return `read p50 vs history length: ${fixed(c.p50_ms_10, 2)} ms at 10 revisions, ${fixed(p50Long, 2)} ms at ${long} revisions (x${c.ratio.toFixed(2)})`;
}

async function store(files: string[], flags: StoreFlags): Promise<void> {
  if (files.length === 0 && !flags.lengthCheck) throw new UsageError("name at least one MediaWiki export (e.g. ../shared/corpus/histories/bip-0340.xml.br), or pass --length-check");
  for (const file of files) if (!existsSync(file)) throw new UsageError(`cannot read ${file}`);
  const out = rowPrinter(flags.json ?? false, COLUMNS);
  if (files.length > 0) {
    out.header();
    if (!flags.json) logLine("bench store: ratios are stored bytes / raw text bytes; times are ms per revision");
  }
  // Imported when run: it loads wrangler, which takes seconds.
  const { benchStore } = await import("../store/run.ts");
  try {
    await benchStore(files, {
      seed: flags.seed,
      git: flags.git,
      readSample: flags.readSample,
      lengthCheckLong: flags.lengthCheck ? flags.lengthCheckLong : undefined,
      log: logLine,
      onRow: out.row,
      onLengthCheck: (check) => printLine(flags.json ? JSON.stringify(check) : checkLine(check, flags.lengthCheckLong)),
    });
  } catch (err) {
    if (err instanceof HistoryInputError) throw new UsageError(err.message);
    throw err;
  }
}

/** Adds `store` to the `bench` command group. */
export function registerBenchStore(bench: Command): void {
  bench
    .command("store")
    .description("import MediaWiki exports into a local Worker and measure storage ratio, read cost and latency against gzip, brotli and git baselines")
    .argument("[files...]", "MediaWiki exports, one page history each (plain, .gz, .br or .bz2)")
    .option("--json", "one JSON object per history (then one for --length-check)")
    .option("--length-check", "also compare read p50 on a 10-revision and a 10,000-revision synthetic page")
    .option("--length-check-long <n>", "revisions in the long synthetic page (the key becomes p50_ms_<n>)", parseIntOption("length-check-long", 20, 100_000), 10_000)
    .option("--read-sample <n>", "revisions read back per history, plus the first and the last (default 400)", parseIntOption("read-sample", 1, 1_000_000))
    .option("--seed <n>", "seed for the read sample and order", parseIntOption("seed", 0, 2 ** 31 - 1), 1)
    .option("--no-git", "skip the git pack baseline (null)")
    .action((files: string[], flags: StoreFlags) => store(files, flags));
}
