/**
 * `palimpsest dict train|build`: the reduced static-dictionary tables
 * (src/tools/dict/). `train` makes one table from any corpus; `build` makes the
 * committed ones from the shared corpus, and `build --check` is CI's proof
 * they regenerate byte for byte (`npm run build:dict -- --check`).
 *
 * @example
 * npx palimpsest dict train --type css ../shared/corpus/web --part train --out /tmp/css.psd
 * npm run build:dict -- --check
 */
import { writeFileSync } from "node:fs";
import { Command, Option } from "commander";
import "../../../codec/install-node.ts";
import { dictionaryWord } from "../../../codec/index.ts";
import { STATIC_DICT_TYPES, type StaticDictType } from "../../../codec/dict/static-dict.ts";
import { describeTransform, TRANSFORM_COUNT } from "../../dict/transforms.ts";
import { LIMITS } from "../../../limits.ts";
import {
  buildTables,
  CorpusMissingForBuildError,
  DEFAULT_WEB_CORPUS,
  staleFiles,
  writeBuilt,
} from "../../dict/build.ts";
import { CorpusError, corpusFiles, PARTS, type CorpusPart } from "../../dict/corpus.ts";
import { gainByTransform, type PairScore } from "../../dict/select.ts";
import { ALL_TRANSFORMS, trainTable } from "../../dict/train.ts";
import { logLine, parseIntOption, UsageError } from "../../local/output.ts";

interface TrainFlags {
  type: StaticDictType;
  out: string;
  part: CorpusPart;
  maxEntries: number;
  minFiles: number;
  transforms?: number[];
  scores?: string;
}

function parseTransforms(value: string): number[] {
  if (value === "all") return [...ALL_TRANSFORMS];
  const ids = value.split(",").map((s) => s.trim());
  if (ids.some((s) => !/^\d+$/.test(s) || Number(s) >= TRANSFORM_COUNT)) {
    throw new UsageError(`--transforms must be "all" or comma-separated ids 0..${TRANSFORM_COUNT - 1}, got "${value}"`);
  }
  return [...new Set(ids.map(Number))].sort((a, b) => a - b);
}

/** Every scored pair as TSV with its bytes, for deciding budgets and transforms by hand. */
function writeScores(path: string, scores: readonly PairScore[], kept: number): void {
  const lines = ["rank\tkept\tlength\tindex\ttransform\tgain\thits\tfiles\tbytes"];
  scores.forEach((s, i) => {
    const bytes = JSON.stringify(Buffer.from(dictionaryWord(s.length, s.index, s.transform)).toString("latin1"));
    lines.push([i + 1, i < kept ? 1 : 0, s.length, s.index, s.transform, s.gain, s.hits, s.files, bytes].join("\t"));
  });
  writeFileSync(path, lines.join("\n") + "\n");
}

function train(dirs: string[], flags: TrainFlags): void {
  let files;
  try {
    files = corpusFiles(dirs, { type: flags.type, part: flags.part });
  } catch (err) {
    if (err instanceof CorpusError) throw new UsageError(err.message);
    throw err;
  }
  if (files.length === 0)
    throw new UsageError(`no ${flags.type} files (part "${flags.part}") under ${dirs.join(", ")}`);
  logLine(`dict train: ${flags.type}: ${files.length} files (part "${flags.part}")`);
  const result = trainTable(files, {
    maxEntries: flags.maxEntries,
    minFiles: flags.minFiles,
    transforms: flags.transforms,
    log: logLine,
  });
  writeFileSync(flags.out, result.table);
  const total = result.scores.reduce((n, s) => n + s.gain, 0);
  const kept = result.kept.reduce((n, s) => n + s.gain, 0);
  logLine(
    `dict train: wrote ${flags.out}: ${result.kept.length} of ${result.scores.length} pairs used, ${result.table.byteLength} bytes,` +
      ` ${((100 * kept) / Math.max(1, total)).toFixed(1)}% of the traced gain`,
  );
  const byTransform = [...gainByTransform(result.kept).entries()].sort((a, b) => b[1] - a[1]).slice(0, 12);
  logLine(
    `dict train: kept gain by transform: ${byTransform.map(([t, g]) => `${t} ${describeTransform(t)} ${((100 * g) / Math.max(1, kept)).toFixed(1)}%`).join("; ")}`,
  );
  if (flags.scores) writeScores(flags.scores, result.scores, result.kept.length);
}

function build(flags: { check?: boolean; corpus: string }): void {
  let files;
  try {
    files = buildTables(flags.corpus, logLine);
  } catch (err) {
    if (err instanceof CorpusMissingForBuildError) throw new UsageError(err.message);
    throw err;
  }
  if (!flags.check) {
    writeBuilt(files);
    logLine(
      `build:dict: wrote ${files.map((f) => `src/codec/dict/${f.name} (${f.bytes.byteLength} bytes)`).join(", ")}`,
    );
    return;
  }
  const stale = staleFiles(files);
  if (stale.length > 0) {
    throw new Error(
      `build:dict --check: ${stale.map((n) => `src/codec/dict/${n}`).join(", ")} differ from what the corpus regenerates; run 'npm run build:dict' and commit`,
    );
  }
  logLine(`build:dict --check: ${files.map((f) => f.name).join(", ")} regenerate byte for byte`);
}

export function registerDictCommands(program: Command): void {
  const dict = program.command("dict").description("reduced static-dictionary tables for brotli (HTML, CSS, JS)");
  dict
    .command("train")
    .description("train one table from the HTML, CSS or JS files under DIRs (type from the extension)")
    .argument("<dirs...>", "directories to read, recursively")
    .addOption(new Option("--type <type>", "content type").choices(STATIC_DICT_TYPES).makeOptionMandatory())
    .requiredOption("--out <file>", "where to write the .psd table")
    .addOption(
      new Option("--part <part>", "which part of the fixed split (by SHA-256 of the path under DIR)")
        .choices(PARTS)
        .default("all"),
    )
    .option(
      "--max-entries <n>",
      "pairs to keep",
      parseIntOption("max-entries", 1, LIMITS.staticDict.maxTableEntries),
      2048,
    )
    .option(
      "--min-files <n>",
      "keep only pairs used in at least this many files",
      parseIntOption("min-files", 1, 1_000_000),
      2,
    )
    .option("--transforms <ids>", 'candidate transforms: "all" (default) or ids, e.g. 0,1,9,21', parseTransforms)
    .option("--scores <file>", "also write every used pair's score as TSV")
    .action((dirs: string[], flags: TrainFlags) => train(dirs, flags));
  dict
    .command("build")
    .description("regenerate the committed tables (src/codec/dict/) from the shared corpus's train part")
    .option("--check", "regenerate in memory and fail if the committed files differ")
    .option("--corpus <dir>", "the web corpus", DEFAULT_WEB_CORPUS)
    .action((flags: { check?: boolean; corpus: string }) => build(flags));
}
