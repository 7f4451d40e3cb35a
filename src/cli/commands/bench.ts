/**
 * `palimpsest bench ...`: the performance checks. A command group, so later
 * benches (`bench store`, `bench tiers`) register beside `codecs`.
 *
 * @example
 * npx palimpsest bench codecs                 # table, default corpus sample (~1 min)
 * npx palimpsest bench codecs --json --quick a.html b.css
 */
import { Command } from "commander";
import { CODEC_BUILD } from "../../codec/index.ts";
import { benchCodecs, type CodecRow } from "../../bench/codecs.ts";
import { BenchInputError, CorpusMissingError, DEFAULT_CORPUS_DIR, defaultSample, fileSample, type BenchSample } from "../../bench/corpus.ts";
import { codecModuleSizes, type ModuleSizes } from "../../bench/module-sizes.ts";
import { DEFAULT_POLICY, QUICK_POLICY } from "../../bench/timing.ts";
import { UsageError } from "../output.ts";
import { registerBenchStore } from "./bench-store.ts";
import { registerBenchTiers } from "./bench-tiers.ts";

interface CodecsFlags {
  json?: boolean;
  quick?: boolean;
  corpus: string;
}

const log = (msg: string) => process.stderr.write(`${msg}\n`);

function loadSample(files: string[], flags: CodecsFlags): BenchSample {
  try {
    return files.length > 0 ? fileSample(files) : defaultSample(flags.corpus, { quick: flags.quick ?? false });
  } catch (err) {
    if (err instanceof CorpusMissingError || err instanceof BenchInputError) throw new UsageError(err.message);
    throw err;
  }
}

const num = (x: number | null, digits: number) => (x === null ? "-" : x.toFixed(digits));

// [title, width (negative = left-aligned), cell]
const COLUMNS: [string, number, (r: CodecRow) => string][] = [
  ["codec", -9, (r) => r.codec],
  ["op", -10, (r) => r.op],
  ["q", 2, (r) => String(r.quality ?? "-")],
  ["lgwin", 5, (r) => String(r.lgwin ?? "-")],
  ["dict", -4, (r) => (r.dict ? "yes" : "no")],
  ["bytes_in", 10, (r) => String(r.bytes_in)],
  ["bytes_out", 10, (r) => String(r.bytes_out)],
  ["MB/s", 8, (r) => num(r.mb_per_s, 1)],
  ["base MB/s", 9, (r) => num(r.baseline_mb_per_s, 1)],
  ["x base", 6, (r) => num(r.ratio_vs_baseline, 2)],
  ["baseline", 0, (r) => r.baseline],
];

const pad = (text: string, width: number) => (width < 0 ? text.padEnd(-width) : text.padStart(width));
const TABLE_HEADER = COLUMNS.map(([title, width]) => pad(title, width)).join("  ");
const tableLine = (r: CodecRow) => COLUMNS.map(([, width, cell]) => pad(cell(r), width)).join("  ");

function sizesTable(s: ModuleSizes): string {
  const kb = (n: number | null | undefined) => (n === null || n === undefined ? "-" : `${(n / 1024).toFixed(1)} KiB`);
  const lines = (["brotli.wasm", "brotli-decoder.wasm", "lz4.wasm", "codec.js", "codec.min.js"] as const).map(
    (k) => `  ${k.padEnd(20)} ${kb(s[k]?.bytes).padStart(11)}  gzip -9 ${kb(s[k]?.gzip).padStart(11)}`,
  );
  lines.push(`  total (brotli.wasm + lz4.wasm + codec.js), gzip -9: ${kb(s.total_gzip)}`);
  lines.push(`  decoder-only (brotli-decoder.wasm + lz4.wasm + codec.js), gzip -9: ${kb(s.decoder_only_total_gzip)}`);
  if (s.note) lines.push(`  ${s.note}`);
  return lines.join("\n");
}

async function codecs(files: string[], flags: CodecsFlags): Promise<void> {
  const sample = loadSample(files, flags);
  const policy = flags.quick ? QUICK_POLICY : DEFAULT_POLICY;
  log(`bench codecs: ${sample.description}; ${sample.pairs.length} dictionary pairs`);
  log(`bench codecs: codec build ${CODEC_BUILD.id} (${CODEC_BUILD.brotli}, ${CODEC_BUILD.lz4}); node ${process.version}, zlib brotli ${process.versions.brotli}`);
  if (!flags.json) process.stdout.write(`${TABLE_HEADER}\n`);
  benchCodecs(sample, {
    policy,
    log,
    onRow: (row) => process.stdout.write(`${flags.json ? JSON.stringify(row) : tableLine(row)}\n`),
  });
  const sizes = await codecModuleSizes();
  process.stdout.write(flags.json ? `${JSON.stringify({ module_sizes: sizes })}\n` : `\nmodule sizes:\n${sizesTable(sizes)}\n`);
}

export function registerBenchCommands(program: Command): void {
  const bench = program.command("bench").description("measure the archive's building blocks");
  bench
    .command("codecs")
    .description("wasm codec throughput against native brotli, LZ4 and gzip, plus the codec's shipped size")
    .argument("[files...]", "inputs to benchmark (default: a fixed sample of the shared corpus)")
    .option("--json", "one JSON object per row, then one {\"module_sizes\": ...} line")
    .option("--quick", "smaller sample and fewer timed passes: noisy numbers, for tests")
    .option("--corpus <dir>", "corpus to sample when no files are given", DEFAULT_CORPUS_DIR)
    .action((files: string[], flags: CodecsFlags) => codecs(files, flags));
  registerBenchStore(bench);
  registerBenchTiers(bench);
}
