/**
 * `bench dict`: the reduced static dictionaries against stock brotli. Every
 * HTML, CSS and JS file (type from the extension) is compressed, as the edge
 * compresses a dynamic response of that type (same window, same mode), four
 * ways in one run: our wasm brotli at q5 stock, q5 with the type's reduced
 * table, q6 stock, and Node's zlib (native brotli) at q5 as the anchor. Each
 * file's four passes alternate (harness/timing.ts), at least five rounds, and
 * each takes its best pass, so drifting load falls on all alike and one
 * scheduler hiccup does not decide a millisecond-long pass. Every reduced
 * output is checked to decode to the input with Node's zlib.
 *
 * Rows (one JSON line each):
 *
 * | row | fields |
 * |---|---|
 * | `bucket` | type, bucket (`le4k`, `4k-16k`, `16k-64k`, `64k-256k`: input bytes ≤ 4 KiB, …), files, stock_q5_bytes, reduced_q5_bytes, stock_q6_bytes, stock_q5_ms, reduced_q5_ms, stock_q6_ms, native_q5_ms (sums over the files; ms = best pass) |
 * | `target` | type, target, want, got, met, for files ≤ 64 KiB: reduced q5 bytes / stock q6 bytes ≤ 1, and reduced q5 ms / stock q5 ms ≤ 1.03 |
 *
 * @example
 * await benchDict(corpusFiles(["../shared/corpus/web"], { part: "held-out" }), { onRow: (r) => console.log(JSON.stringify(r)) });
 */
import { readFileSync } from "node:fs";
import { brotliCompressSync, brotliDecompressSync, constants as zlib } from "node:zlib";
import { brotliCompress, type ReducedDictionary } from "../../../codec/index.ts";
import { STATIC_DICT_TYPES, type StaticDictType } from "../../../codec/dict/static-dict.ts";
import type { CorpusFile } from "../../dict/corpus.ts";
import { brotliModeFor, wireLgwin } from "../../../representation/wire-encode.ts";
import { measureAll, round, type TimingPolicy } from "../harness/index.ts";

export const BUCKETS = [
  { name: "le4k", max: 4 * 1024 },
  { name: "4k-16k", max: 16 * 1024 },
  { name: "16k-64k", max: 64 * 1024 },
  { name: "64k-256k", max: 256 * 1024 },
] as const;
export type BucketName = (typeof BUCKETS)[number]["name"];

/** The targets, for files up to this size. */
const TARGET_MAX_BYTES = 64 * 1024;
const BYTES_TARGET = 1;
const CPU_TARGET = 1.03;

export interface DictBucketRow {
  row: "bucket";
  type: StaticDictType;
  bucket: BucketName;
  files: number;
  stock_q5_bytes: number;
  reduced_q5_bytes: number;
  stock_q6_bytes: number;
  stock_q5_ms: number;
  reduced_q5_ms: number;
  stock_q6_ms: number;
  native_q5_ms: number;
}

export interface DictTargetRow {
  row: "target";
  type: StaticDictType;
  target: string;
  want: string;
  got: number;
  met: boolean;
}

export type DictRow = DictBucketRow | DictTargetRow;

/** The fields of a bucket row, in order: what the tests hold the output to. */
export const DICT_BUCKET_ROW_KEYS = [
  "row",
  "type",
  "bucket",
  "files",
  "stock_q5_bytes",
  "reduced_q5_bytes",
  "stock_q6_bytes",
  "stock_q5_ms",
  "reduced_q5_ms",
  "stock_q6_ms",
  "native_q5_ms",
] as const satisfies readonly (keyof DictBucketRow)[];

/**
 * Best of at least seven alternating rounds per file, and of more for small
 * files (until the slowest pass has run 30 ms in all): on a shared 2-core
 * machine five rounds of a 1 ms pass left the ratios swinging by ±10 %.
 */
export const DICT_POLICY: TimingPolicy = {
  warmupPasses: 1,
  minPasses: 7,
  minSeconds: 0.03,
  maxPasses: 200,
  statistic: "best",
};
export const DICT_QUICK_POLICY: TimingPolicy = {
  warmupPasses: 1,
  minPasses: 5,
  minSeconds: 0,
  maxPasses: 5,
  statistic: "best",
};

export interface DictBenchOptions {
  policy?: TimingPolicy;
  /** The table each type is compressed with (default: the committed ones). */
  tables: Record<StaticDictType, ReducedDictionary>;
  log?: (line: string) => void;
  onRow(row: DictRow): void;
}

const MEDIA_TYPES: Record<StaticDictType, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
};

interface FileFigures {
  bytes: number;
  out: [stockQ5: number, reducedQ5: number, stockQ6: number];
  /** Seconds: stock q5, reduced q5, stock q6, native q5. */
  seconds: [number, number, number, number];
}

function measureFile(
  input: Uint8Array,
  type: StaticDictType,
  table: ReducedDictionary,
  policy: TimingPolicy,
  label: string,
): FileFigures {
  const mode = brotliModeFor(MEDIA_TYPES[type]);
  const lgwin = wireLgwin(input.byteLength);
  const stock = (quality: number) => () => brotliCompress(input, { quality, lgwin, mode });
  const reduced = () => brotliCompress(input, { quality: 5, lgwin, mode, reducedDictionary: table });
  const nativeParams = {
    [zlib.BROTLI_PARAM_QUALITY]: 5,
    [zlib.BROTLI_PARAM_LGWIN]: lgwin,
    [zlib.BROTLI_PARAM_MODE]: mode === "text" ? zlib.BROTLI_MODE_TEXT : zlib.BROTLI_MODE_GENERIC,
    [zlib.BROTLI_PARAM_SIZE_HINT]: input.byteLength,
  };
  const native = () => brotliCompressSync(input, { params: nativeParams });
  const reducedOut = reduced();
  if (!Buffer.from(brotliDecompressSync(reducedOut)).equals(Buffer.from(input))) {
    throw new Error(
      `bench dict: ${label}: the reduced-dictionary stream does not decode to the input with Node's zlib`,
    );
  }
  const timings = measureAll([stock(5), reduced, stock(6), native], policy);
  return {
    bytes: input.byteLength,
    out: [stock(5)().byteLength, reducedOut.byteLength, stock(6)().byteLength],
    seconds: timings.map((t) => t.seconds) as FileFigures["seconds"],
  };
}

function bucketOf(bytes: number): BucketName | undefined {
  return BUCKETS.find((b) => bytes <= b.max)?.name;
}

const ms = (seconds: number) => round(seconds * 1e3, 3);

type Totals = Omit<DictBucketRow, "row" | "type" | "bucket">;

function totals(figures: readonly FileFigures[]): Totals {
  const sum = (pick: (f: FileFigures) => number) => figures.reduce((n, f) => n + pick(f), 0);
  return {
    files: figures.length,
    stock_q5_bytes: sum((f) => f.out[0]),
    reduced_q5_bytes: sum((f) => f.out[1]),
    stock_q6_bytes: sum((f) => f.out[2]),
    stock_q5_ms: ms(sum((f) => f.seconds[0])),
    reduced_q5_ms: ms(sum((f) => f.seconds[1])),
    stock_q6_ms: ms(sum((f) => f.seconds[2])),
    native_q5_ms: ms(sum((f) => f.seconds[3])),
  };
}

function targetRows(type: StaticDictType, figures: readonly FileFigures[]): DictTargetRow[] {
  const small = figures.filter((f) => f.bytes <= TARGET_MAX_BYTES);
  if (small.length === 0) return [];
  const row = totals(small);
  const bytes = round(row.reduced_q5_bytes / row.stock_q6_bytes, 4);
  const cpu = round(row.reduced_q5_ms / row.stock_q5_ms, 4);
  const scope = `(${small.length} files <= 64 KiB)`;
  const target = (ratio: string, got: number, want: number): DictTargetRow => ({
    row: "target",
    type,
    target: `${ratio} ${scope}`,
    want: `<= ${want}`,
    got,
    met: got <= want,
  });
  return [
    target("reduced q5 bytes / stock q6 bytes", bytes, BYTES_TARGET),
    target("reduced q5 ms / stock q5 ms", cpu, CPU_TARGET),
  ];
}

export function benchDict(files: readonly CorpusFile[], options: DictBenchOptions): void {
  const policy = options.policy ?? DICT_POLICY;
  const log = options.log ?? (() => {});
  for (const type of STATIC_DICT_TYPES) {
    const ofType = files.filter((f) => f.type === type);
    if (ofType.length === 0) continue;
    const table = options.tables[type];
    log(
      `bench dict: ${type}: ${ofType.length} files; table ${table.entries} pairs, ${table.preparedBytes()} bytes prepared in the wasm heap`,
    );
    const byBucket = new Map<BucketName, FileFigures[]>();
    const all: FileFigures[] = [];
    for (const file of ofType) {
      const bucket = bucketOf(file.bytes);
      if (bucket === undefined) {
        log(`bench dict: skipping ${file.path}: ${file.bytes} bytes is over the largest bucket (256 KiB)`);
        continue;
      }
      const figures = measureFile(readFileSync(file.path), type, table, policy, file.path);
      byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), figures]);
      all.push(figures);
    }
    for (const { name } of BUCKETS) {
      const figures = byBucket.get(name);
      if (figures) options.onRow({ row: "bucket", type, bucket: name, ...totals(figures) });
    }
    for (const row of targetRows(type, all)) options.onRow(row);
  }
}
