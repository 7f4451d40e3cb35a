/**
 * `palimpsest bench codecs [FILE...]`: wasm codec throughput against native
 * brotli, LZ4 and gzip on the same inputs in the same run, then the codec's
 * shipped size. See src/tools/bench/codecs.ts for every field.
 *
 * @example
 * npx palimpsest bench codecs --json --quick a.html b.css
 */
import type { Command } from "commander";
import { CODEC_BUILD } from "../../../codec/index.ts";
import { benchCodecs, type CodecRow, type Lz4VariantsLine } from "../codecs.ts";
import {
  BenchInputError,
  CorpusMissingError,
  DEFAULT_CORPUS_DIR,
  defaultSample,
  fileSample,
  type BenchSample,
} from "../corpus.ts";
import { DEFAULT_POLICY, fixed, printLine, QUICK_POLICY, rowPrinter, type Column } from "../harness/index.ts";
import { codecModuleSizes, type ModuleSizes, type SizeEntry } from "../module-sizes.ts";
import { logLine, UsageError } from "../../local/output.ts";

interface CodecsFlags {
  json?: boolean;
  quick?: boolean;
  workerGzip?: boolean;
  corpus: string;
}

const COLUMNS: Column<CodecRow>[] = [
  ["codec", -9, (r) => r.codec],
  ["op", -10, (r) => r.op],
  ["q", 2, (r) => String(r.quality ?? "-")],
  ["lgwin", 5, (r) => String(r.lgwin ?? "-")],
  ["dict", -4, (r) => (r.dict ? "yes" : "no")],
  ["bytes_in", 10, (r) => String(r.bytes_in)],
  ["bytes_out", 10, (r) => String(r.bytes_out)],
  ["MB/s", 8, (r) => fixed(r.mb_per_s, 1)],
  ["base MB/s", 9, (r) => fixed(r.baseline_mb_per_s, 1)],
  ["x base", 6, (r) => fixed(r.ratio_vs_baseline, 2)],
  ["baseline", 0, (r) => r.baseline],
];

const MODULES = ["brotli.wasm", "lz4.wasm", "codec.js", "codec.min.js"] as const;
const kib = (n: number | null | undefined) => (n === null || n === undefined ? "-" : `${(n / 1024).toFixed(1)} KiB`);
const SIZE_COLUMNS: Column<[string, SizeEntry | null]>[] = [
  ["  module", -22, ([name]) => `  ${name}`],
  ["bytes", 11, ([, e]) => kib(e?.bytes)],
  ["gzip -9", 11, ([, e]) => kib(e?.gzip)],
];

function printSizes(s: ModuleSizes, json: boolean): void {
  if (json) return printLine(JSON.stringify({ module_sizes: s }));
  printLine("\nmodule sizes:");
  const table = rowPrinter(false, SIZE_COLUMNS);
  table.header();
  for (const name of MODULES) table.row([name, s[name]]);
  printLine(`  total (brotli.wasm + lz4.wasm + codec.js), gzip -9: ${kib(s.total_gzip)}`);
  if (s.note) printLine(`  ${s.note}`);
}

function loadSample(files: string[], flags: CodecsFlags): BenchSample {
  try {
    return files.length > 0 ? fileSample(files) : defaultSample(flags.corpus, { quick: flags.quick ?? false });
  } catch (err) {
    if (err instanceof CorpusMissingError || err instanceof BenchInputError) throw new UsageError(err.message);
    throw err;
  }
}

async function codecs(files: string[], flags: CodecsFlags): Promise<void> {
  const sample = loadSample(files, flags);
  logLine(`bench codecs: ${sample.description}; ${sample.pairs.length} dictionary pairs`);
  logLine(
    `bench codecs: codec build ${CODEC_BUILD.id} (${CODEC_BUILD.brotli}, ${CODEC_BUILD.lz4}); node ${process.version}, zlib brotli ${process.versions.brotli}`,
  );
  const out = rowPrinter(flags.json ?? false, COLUMNS);
  out.header();
  const variants: Lz4VariantsLine[] = [];
  const onVariants = flags.json
    ? (line: Lz4VariantsLine) => printLine(JSON.stringify(line))
    : (line: Lz4VariantsLine) => variants.push(line);
  const policy = flags.quick ? QUICK_POLICY : DEFAULT_POLICY;
  benchCodecs(sample, { policy, log: logLine, onRow: out.row, onVariants });
  if (flags.workerGzip) {
    // Imported when asked for: it starts a local Worker, which loads wrangler.
    const { benchWorkerGzip } = await import("../worker-gzip.ts");
    for (const row of await benchWorkerGzip(
      sample.items.map((i) => i.bytes),
      policy,
      logLine,
    ))
      out.row(row);
  }
  for (const { lz4_variants: v } of variants) {
    printLine(
      `\nlz4 level ${v.level} block decoders, glue included (MB/s, x reference): bandit chose ${v.bandit_choice}, best fixed ${v.best_fixed}`,
    );
    for (const r of v.rows)
      printLine(`  ${r.variant.padEnd(16)} ${fixed(r.mb_per_s, 1).padStart(8)}  ${fixed(r.ratio_vs_reference, 2)}`);
  }
  printSizes(await codecModuleSizes(), flags.json ?? false);
}

export function registerBenchCodecs(bench: Command): void {
  bench
    .command("codecs")
    .description("wasm codec throughput against native brotli, LZ4 and gzip, plus the codec's shipped size")
    .argument("[files...]", "inputs to benchmark (default: a fixed sample of the shared corpus)")
    .option(
      "--json",
      'one JSON object per row, an {"lz4_variants": ...} line per LZ4 level, then one {"module_sizes": ...} line',
    )
    .option("--quick", "smaller sample and fewer timed passes: noisy numbers, for tests")
    .option("--corpus <dir>", "corpus to sample when no files are given", DEFAULT_CORPUS_DIR)
    .option(
      "--worker-gzip",
      "also time the Worker's gzip (workerd's node:zlib) in a local workerd, against Node's zlib",
    )
    .action((files: string[], flags: CodecsFlags) => codecs(files, flags));
}
