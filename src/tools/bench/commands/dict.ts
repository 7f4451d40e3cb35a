/**
 * `palimpsest bench dict DIR...`: the committed reduced static dictionaries
 * against stock brotli q5 and q6 and native q5, per content type and size
 * bucket, on the HTML, CSS and JS files under DIRs. `--part held-out` takes
 * the part of the corpus the tables were not trained on (the same split as
 * `npm run build:dict`, given the same directory). See src/tools/bench/dict/run.ts
 * for every field.
 *
 * @example
 * npx palimpsest bench dict --json --part held-out ../shared/corpus/web
 */
import { readFileSync } from "node:fs";
import { errorMessage } from "../../../lib/errors.ts";
import { join } from "node:path";
import { Option, type Command } from "commander";
import { ReducedDictionary } from "../../../codec/index.ts";
import { reducedDictionary, STATIC_DICT_TYPES, type StaticDictType } from "../../../codec/dict/static-dict.ts";
import { CorpusError, corpusFiles, PARTS, type CorpusPart } from "../../dict/corpus.ts";
import { benchDict, DICT_POLICY, DICT_QUICK_POLICY, type DictBucketRow, type DictRow } from "../dict/run.ts";
import { fixed, mixedRowPrinter, type Column } from "../harness/index.ts";
import { logLine, UsageError } from "../../local/output.ts";

interface DictFlags {
  json?: boolean;
  quick?: boolean;
  part: CorpusPart;
  tables?: string;
}

const pct = (a: number, b: number) => `${fixed((100 * a) / b, 2)}%`;
const COLUMNS: Column<DictBucketRow>[] = [
  ["type", -4, (r) => r.type],
  ["bucket", -8, (r) => r.bucket],
  ["files", 5, (r) => String(r.files)],
  ["q5 bytes", 10, (r) => String(r.stock_q5_bytes)],
  ["red q5", 10, (r) => String(r.reduced_q5_bytes)],
  ["q6 bytes", 10, (r) => String(r.stock_q6_bytes)],
  ["red/q6", 8, (r) => pct(r.reduced_q5_bytes, r.stock_q6_bytes)],
  ["q5 ms", 9, (r) => fixed(r.stock_q5_ms, 2)],
  ["red ms", 9, (r) => fixed(r.reduced_q5_ms, 2)],
  ["q6 ms", 9, (r) => fixed(r.stock_q6_ms, 2)],
  ["native", 9, (r) => fixed(r.native_q5_ms, 2)],
  ["red/q5 ms", 9, (r) => pct(r.reduced_q5_ms, r.stock_q5_ms)],
];

/** The committed tables, or `DIR/{html,css,js}.psd` when measuring candidates (--tables). */
function loadTables(dir: string | undefined): Record<StaticDictType, ReducedDictionary> {
  const out = {} as Record<StaticDictType, ReducedDictionary>;
  for (const type of STATIC_DICT_TYPES) {
    if (dir === undefined) {
      out[type] = reducedDictionary(type);
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(join(dir, `${type}.psd`));
    } catch (err) {
      throw new UsageError(`--tables: cannot read ${join(dir, `${type}.psd`)}: ${errorMessage(err)}`);
    }
    out[type] = ReducedDictionary.prepare(bytes);
  }
  return out;
}

function dict(dirs: string[], flags: DictFlags): void {
  let files;
  try {
    files = corpusFiles(dirs, { part: flags.part });
  } catch (err) {
    if (err instanceof CorpusError) throw new UsageError(err.message);
    throw err;
  }
  if (files.length === 0)
    throw new UsageError(`no .html/.htm, .css or .js/.mjs files (part "${flags.part}") under ${dirs.join(", ")}`);
  logLine(
    `bench dict: ${files.length} files (part "${flags.part}") under ${dirs.join(", ")}; ${flags.tables ? `tables from ${flags.tables}` : "committed tables"}`,
  );
  const out = mixedRowPrinter(
    flags.json ?? false,
    COLUMNS,
    (r: DictRow): r is DictBucketRow => r.row === "bucket",
    (r) => `${r.met ? "met" : "MISSED"}: ${r.type}: ${r.target} ${r.want}: ${r.got}`,
  );
  out.header();
  benchDict(files, {
    policy: flags.quick ? DICT_QUICK_POLICY : DICT_POLICY,
    tables: loadTables(flags.tables),
    log: logLine,
    onRow: out.row,
  });
}

export function registerBenchDict(bench: Command): void {
  bench
    .command("dict")
    .description(
      "reduced static dictionaries: q5 with the type's table against stock q5, q6 and native q5, per type and size bucket",
    )
    .argument("<dirs...>", "directories with .html/.htm, .css and .js/.mjs files (e.g. ../shared/corpus/web)")
    .option("--json", "one JSON object per line: a row per type and bucket, then the targets")
    .addOption(
      new Option("--part <part>", "which part of the split build:dict trains on (held-out: what it never saw)")
        .choices(PARTS)
        .default("all"),
    )
    .option("--tables <dir>", "measure DIR/{html,css,js}.psd instead of the committed tables")
    .option("--quick", "exactly five rounds per file, no minimum time: for tests")
    .action((dirs: string[], flags: DictFlags) => dict(dirs, flags));
}
