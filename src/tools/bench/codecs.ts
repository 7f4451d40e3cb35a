/**
 * `bench codecs`: throughput of the wasm codecs against native code on the
 * same bytes, measured in the same process and run.
 *
 * Each row times one operation over a whole list of inputs (one pass = every
 * input once, each its own call, as the archive stores one response or one
 * revision per call), and its baseline times the native equivalent over the
 * very same list in the same run:
 *
 * | codec     | rows                                      | baselines (one row each)                              |
 * |-----------|-------------------------------------------|-------------------------------------------------------|
 * | br        | q5/lgwin 22 and q9/lgwin 24, plain        | node:zlib brotli; native-brotli (see below)           |
 * | br dict   | the same, against a raw prefix dictionary | native-brotli's dictionary call; our own plain call   |
 * | lz4       | level 0 (fast) and 9 (HC), block API      | native-lz4 (see below); the `lz4` tool's `-b`         |
 * |           | + one `lz4_variants` line per level: each decoder variant, the bandit, the reference (lz4-variants.ts); |
 * |           |   the bandit is the module's own, so level 9's has learned from level 0's blocks too              |
 * |           | decompress rows decode into a buffer per input made once (lz4DecompressInto), as native-lz4 and   |
 * |           |   `lz4 -b` do; the `lz4_variants` line times lz4Decompress, which allocates its output per call   |
 * | lz4-frame | level 0, 4 MiB linked blocks              | native-lz4's frame API                                |
 * | gzip      | level 6 (fflate)                          | node:zlib gzipSync level 6 / gunzipSync               |
 *
 * Where a native harness decodes into a buffer per input made once
 * (native-lz4's block and frame paths, native-brotli's plain path), our row against it does the same
 * (lz4DecompressInto, lz4FrameDecompressInto, brotliDecompressInto); node:zlib allocates its output,
 * and so do our rows against it.
 *
 * native-brotli and native-lz4 are the very sources the wasm is built from
 * (the pinned sdists, brotli with build.sh's patch), built for this machine
 * with clang-16 -O2 (native-build.ts): the same code, without the wasm
 * target and the JS glue. A row's `baseline` names which it is.
 *
 * q5/lgwin 22 is the encoder's default wire setting (BROTLI_DEFAULTS); q9 with
 * a 16 MiB window is the storage setting the shared corpus itself was made
 * with. Dictionary rows compress each input of `sample.pairs` against its
 * related earlier input, passing the dictionary's bytes, so each call finds
 * it in the prepared-dictionary cache as the archive's calls do; they are
 * timed in runs that fit that cache (dictionary-batches.ts), each warmed
 * once, as native-brotli prepares each dictionary once. The row against our
 * own plain call on the same inputs, in the same runs, answers what a
 * dictionary costs: its ratio is plain time over dictionary time, so 0.8
 * means a dictionary call takes 1.25 x a plain one.
 * `dict` is a boolean; the dictionaries differ per input (their sizes are in
 * the sample).
 *
 * Throughput is uncompressed megabytes (1e6 bytes) per second for both
 * directions. `bytes_in`/`bytes_out` are the operation's own totals per pass.
 * In-process baselines alternate passes with their row (harness/timing.ts); the
 * native harnesses are separate processes with the same timing loop, each
 * timed right after the wasm passes it is compared with. Every setting is
 * round-tripped once before it is timed.
 */
import { brotliCompressSync, brotliDecompressSync, constants as z, gunzipSync, gzipSync } from "node:zlib";
import { errorMessage } from "../../lib/errors.ts";
import "../../codec/install-node.ts";
import * as wasm from "../../codec/index.ts";
import { LIMITS } from "../../limits.ts";
import type { BenchSample } from "./corpus.ts";
import { timeInCacheSizedRuns } from "./dictionary-batches.ts";
import {
  comparison,
  compareThroughput,
  mbPerSecond,
  measure,
  type Comparison,
  type TimingPolicy,
} from "./harness/index.ts";
import { benchLz4Variants, type Lz4VariantReport } from "./lz4-variants.ts";
import { nativeBrotliBaseline, type NativeBrotliBaseline } from "./native-brotli.ts";
import type { NativeSpeed } from "./native-build.ts";
import { lz4CliBaseline, nativeLz4Baseline, type Lz4Mode, type NativeLz4Baseline } from "./native-lz4.ts";

export const CODEC_ROW_KEYS = [
  "codec",
  "op",
  "quality",
  "lgwin",
  "dict",
  "bytes_in",
  "bytes_out",
  "mb_per_s",
  "baseline",
  "baseline_mb_per_s",
  "ratio_vs_baseline",
] as const;

/** `gzip-worker` is the platform's gzip timed in workerd (`--worker-gzip`, src/tools/bench/worker-gzip.ts). */
export type CodecName = "br" | "lz4" | "lz4-frame" | "gzip" | "gzip-worker";
export type CodecOp = "compress" | "decompress";

export interface CodecRow {
  codec: CodecName;
  op: CodecOp;
  quality: number | null;
  lgwin: number | null;
  dict: boolean;
  bytes_in: number;
  bytes_out: number;
  mb_per_s: number;
  /** What was measured as native, e.g. "node-zlib-brotli (no dict)"; "none" if nothing could be. */
  baseline: string;
  baseline_mb_per_s: number | null;
  /** mb_per_s / baseline_mb_per_s. */
  ratio_vs_baseline: number | null;
}

/** The LZ4 block decoders of one level, each through lz4Decompress's glue (lz4-variants.ts). */
export interface Lz4VariantsLine {
  lz4_variants: Lz4VariantReport & { level: number; bytes_out: number };
}

export interface CodecBenchOptions {
  policy: TimingPolicy;
  /** Called as each row is finished, so a long run shows progress. */
  onRow?: (row: CodecRow) => void;
  /** Called with each LZ4 level's decoder variants, after that level's rows. */
  onVariants?: (line: Lz4VariantsLine) => void;
  /** Progress and fallbacks, for stderr. */
  log?: (msg: string) => void;
}

export const BROTLI_SETTINGS = [
  { quality: 5, lgwin: 22 },
  { quality: 9, lgwin: 24 },
] as const;
export const LZ4_LEVELS = [
  { mode: "fast", level: 0 },
  { mode: "hc9", level: 9 },
] as const satisfies readonly { mode: Lz4Mode; level: number }[];
export const GZIP_LEVEL = 6;

/** Both directions of one codec setting; `i` is the input's index, for per-input dictionaries. */
interface Codec {
  compress(input: Uint8Array, i: number): Uint8Array;
  decompress(packed: Uint8Array, i: number): Uint8Array;
}

type RowHead = Pick<CodecRow, "codec" | "quality" | "lgwin" | "dict">;

/** One row to time: a pass is every input once, each its own call. */
interface RowSpec extends RowHead {
  op: CodecOp;
  inputs: readonly Uint8Array[];
  outputs: readonly Uint8Array[];
  pass: () => void;
}

/** Bytes in all of them. */
export const sum = (xs: readonly Uint8Array[]) => xs.reduce((n, x) => n + x.byteLength, 0);
/** Throughput counts uncompressed bytes in both directions. */
const plainBytes = (spec: RowSpec) => sum(spec.op === "compress" ? spec.inputs : spec.outputs);

function assertSame(a: readonly Uint8Array[], b: readonly Uint8Array[], what: string): void {
  const equal = a.length === b.length && a.every((x, i) => Buffer.compare(x, b[i]!) === 0);
  if (!equal) throw new Error(`bench: ${what} did not round-trip`);
}

/** Packs the inputs once, checks they come back, and describes the compress and the decompress row. */
function roundTrip(head: RowHead, inputs: readonly Uint8Array[], codec: Codec, what: string): [RowSpec, RowSpec] {
  const packed = inputs.map((b, i) => codec.compress(b, i));
  assertSame(
    packed.map((p, i) => codec.decompress(p, i)),
    inputs,
    what,
  );
  return [
    { ...head, op: "compress", inputs, outputs: packed, pass: () => inputs.forEach((b, i) => codec.compress(b, i)) },
    {
      ...head,
      op: "decompress",
      inputs: packed,
      outputs: inputs,
      pass: () => packed.forEach((p, i) => codec.decompress(p, i)),
    },
  ];
}

function toRow(spec: RowSpec, baseline: string, c: Comparison): CodecRow {
  const { codec, op, quality, lgwin, dict, inputs, outputs } = spec;
  const speeds = {
    mb_per_s: c.mbPerS,
    baseline: c.baselineMbPerS === null ? "none" : baseline,
    baseline_mb_per_s: c.baselineMbPerS,
  };
  return {
    codec,
    op,
    quality,
    lgwin,
    dict,
    bytes_in: sum(inputs),
    bytes_out: sum(outputs),
    ...speeds,
    ratio_vs_baseline: c.ratio,
  };
}

/** Times each row against the native codec run in this process on the same inputs, alternating passes. */
function againstInProcess(rows: [RowSpec, RowSpec], name: string, native: Codec, policy: TimingPolicy): CodecRow[] {
  const inputs = rows[0].inputs;
  const packed = inputs.map((b, i) => native.compress(b, i));
  const passes = [
    () => inputs.forEach((b, i) => native.compress(b, i)),
    () => packed.forEach((p, i) => native.decompress(p, i)),
  ];
  return rows.map((spec, k) => toRow(spec, name, compareThroughput(spec.pass, passes[k]!, plainBytes(spec), policy)));
}

/**
 * A native harness runs in another process, so it cannot alternate with the
 * wasm passes; it is timed straight after the wasm rows it is compared with.
 * `speed` may throw (a harness that failed): the rows then say "none".
 */
function againstNative(
  rows: readonly RowSpec[],
  name: string | undefined,
  speed: () => NativeSpeed | undefined,
  o: CodecBenchOptions,
  own: readonly number[] = rows.map((spec) => mbPerSecond(plainBytes(spec), measure(spec.pass, o.policy).seconds)),
): CodecRow[] {
  let native: NativeSpeed | undefined;
  try {
    native = speed();
  } catch (err) {
    o.log?.(`bench: ${name ?? "native baseline"} failed: ${errorMessage(err)}`);
  }
  return rows.map((spec, k) => {
    const base = native ? (spec.op === "compress" ? native.compressMbPerS : native.decompressMbPerS) : null;
    return toRow(spec, name ?? "none", comparison(own[k]!, base || null));
  });
}

interface Baselines {
  lz4?: NativeLz4Baseline;
  lz4Cli?: NativeLz4Baseline;
  brotli?: NativeBrotliBaseline;
}

function lz4Rows(items: readonly Uint8Array[], b: Baselines, o: CodecBenchOptions): CodecRow[] {
  // Into a buffer per input, allocated once, as native-lz4 decodes into its own.
  const outputs = items.map((x) => new Uint8Array(x.byteLength));
  const block = LZ4_LEVELS.flatMap(({ mode, level }) => {
    const codec = {
      compress: (x: Uint8Array) => wasm.lz4Compress(x, { level }),
      decompress: (p: Uint8Array, i: number) => outputs[i]!.subarray(0, wasm.lz4DecompressInto(p, outputs[i]!)),
    };
    const rows = roundTrip(
      { codec: "lz4", quality: level, lgwin: null, dict: false },
      items,
      codec,
      `lz4 level ${level}`,
    );
    const out = [
      ...againstNative(rows, b.lz4?.name, () => b.lz4?.speed(mode), o),
      ...againstNative(rows, b.lz4Cli?.name, () => b.lz4Cli?.speed(mode), o),
    ];
    if (o.onVariants)
      o.onVariants({ lz4_variants: { level, bytes_out: sum(items), ...benchLz4Variants(rows[1].inputs, o.policy) } });
    return out;
  });
  const frame = {
    compress: (x: Uint8Array) => wasm.lz4FrameCompress(x),
    decompress: (p: Uint8Array, i: number) => outputs[i]!.subarray(0, wasm.lz4FrameDecompressInto(p, outputs[i]!)),
  };
  const frameRows = roundTrip({ codec: "lz4-frame", quality: 0, lgwin: null, dict: false }, items, frame, "lz4 frame");
  return [...block, ...againstNative(frameRows, b.lz4?.name, () => b.lz4?.speed("frame"), o)];
}

function gzipRows(items: readonly Uint8Array[], o: CodecBenchOptions): CodecRow[] {
  const own = {
    compress: (b: Uint8Array) => wasm.gzipCompress(b, { level: GZIP_LEVEL }),
    decompress: (p: Uint8Array) => wasm.gzipDecompress(p),
  };
  const native = {
    compress: (b: Uint8Array) => gzipSync(b, { level: GZIP_LEVEL }),
    decompress: (p: Uint8Array) => gunzipSync(p),
  };
  return againstInProcess(
    roundTrip({ codec: "gzip", quality: GZIP_LEVEL, lgwin: null, dict: false }, items, own, "gzip"),
    "node-zlib-gzip",
    native,
    o.policy,
  );
}

/**
 * Node's zlib has no raw-dictionary API, so the dictionary rows are compared
 * with native-brotli's dictionary call and with our own plain call on the
 * same inputs.
 */
function brotliRows(
  sample: BenchSample,
  quality: number,
  lgwin: number,
  b: Baselines,
  o: CodecBenchOptions,
): CodecRow[] {
  const items = sample.items.map((i) => i.bytes);
  const zlib = {
    compress: (x: Uint8Array) =>
      brotliCompressSync(x, {
        params: {
          [z.BROTLI_PARAM_QUALITY]: quality,
          [z.BROTLI_PARAM_LGWIN]: lgwin,
          [z.BROTLI_PARAM_SIZE_HINT]: x.byteLength,
        },
      }),
    decompress: (p: Uint8Array) => brotliDecompressSync(p),
  };
  const plain = {
    compress: (x: Uint8Array) => wasm.brotliCompress(x, { quality, lgwin }),
    decompress: (p: Uint8Array) => wasm.brotliDecompress(p),
  };
  const plainRows = roundTrip({ codec: "br", quality, lgwin, dict: false }, items, plain, `br q${quality}`);
  // native-brotli decodes into a buffer of the known size per input, made once; so do we against it.
  const outputs = items.map((x) => new Uint8Array(x.byteLength));
  const packed = plainRows[1].inputs;
  const intoSpec: RowSpec = {
    ...plainRows[1],
    pass: () => packed.forEach((p, i) => wasm.brotliDecompressInto(p, outputs[i]!)),
  };
  intoSpec.pass();
  assertSame(outputs, items, `br q${quality} into a buffer`);
  const rows = [
    ...againstInProcess(plainRows, "node-zlib-brotli", zlib, o.policy),
    ...againstNative([plainRows[0], intoSpec], b.brotli?.name, () => b.brotli?.plain({ quality, lgwin }).speed, o),
  ];
  const { pairs } = sample;
  if (pairs.length === 0) return rows;
  // Dictionaries as bytes, so every call goes through the prepared-dictionary cache as the archive's do.
  const dict = {
    compress: (x: Uint8Array, i: number) =>
      wasm.brotliCompress(x, { quality, lgwin, dictionary: pairs[i]!.dictionary }),
    decompress: (p: Uint8Array, i: number) => wasm.brotliDecompress(p, { dictionary: pairs[i]!.dictionary }),
  };
  const inputs = pairs.map((p) => p.input);
  const [compressSpec, decompressSpec] = roundTrip(
    { codec: "br", quality, lgwin, dict: true },
    inputs,
    dict,
    `br q${quality} dict`,
  );
  const plainPacked = inputs.map((x) => plain.compress(x));
  const seconds = timeInCacheSizedRuns(
    pairs,
    {
      dictCompress: (pair, i) => dict.compress(pair.input, i),
      plainCompress: (pair) => plain.compress(pair.input),
      dictDecompress: (_pair, i) => dict.decompress(decompressSpec.inputs[i]!, i),
      plainDecompress: (_pair, i) => plain.decompress(plainPacked[i]!),
    },
    o.policy,
  );
  o.log?.(
    `bench: br q${quality} dict rows timed in ${seconds.runs} runs that each fit the ${LIMITS.codec.preparedDictionaryCacheBytes}-byte prepared-dictionary cache`,
  );
  const bytes = sum(inputs);
  const own = [mbPerSecond(bytes, seconds.dictCompress), mbPerSecond(bytes, seconds.dictDecompress)];
  const ownPlain = [mbPerSecond(bytes, seconds.plainCompress), mbPerSecond(bytes, seconds.plainDecompress)];
  const specs = [compressSpec, decompressSpec];
  return [
    ...rows,
    ...againstNative(
      specs,
      b.brotli && `${b.brotli.name}, dictionary prepared once`,
      () => b.brotli?.dictionary({ quality, lgwin }).dict.speed,
      o,
      own,
    ),
    ...specs.map((spec, k) => toRow(spec, "wasm brotli plain call, same inputs", comparison(own[k]!, ownPlain[k]!))),
  ];
}

/** Builds each native baseline once per run; one that cannot be had is logged and left out. */
function withBaselines<T>(sample: BenchSample, o: CodecBenchOptions, use: (b: Baselines) => T): T {
  const items = sample.items.map((i) => i.bytes);
  const log = o.log ?? (() => {});
  const b: Baselines = {};
  const attempt = <K extends keyof Baselines>(key: K, make: () => Baselines[K]) => {
    try {
      b[key] = make();
    } catch (err) {
      log(`bench: no ${key} baseline: ${errorMessage(err)}`);
    }
  };
  attempt("lz4", () => nativeLz4Baseline(items, o.policy, log, { cliFallback: false }));
  attempt("lz4Cli", () => lz4CliBaseline(items, o.policy));
  attempt("brotli", () => nativeBrotliBaseline(items, sample.pairs, o.policy, { log }));
  try {
    return use(b);
  } finally {
    for (const baseline of [b.lz4, b.lz4Cli, b.brotli]) baseline?.dispose();
  }
}

export function benchCodecs(sample: BenchSample, options: CodecBenchOptions): CodecRow[] {
  const items = sample.items.map((i) => i.bytes);
  const emit = (rows: CodecRow[]) => {
    for (const row of rows) options.onRow?.(row);
    return rows;
  };
  if (sample.pairs.length === 0)
    options.log?.("bench: no input has a related earlier input to use as a dictionary; skipping the br dict rows");
  // brotli last: at q9 each call outgrows codec.recycleHeapBytes, so the
  // heap is replaced per call and hundreds of dead 30+ MiB wasm memories
  // await GC; LZ4 timed after the brotli rows ran ~2x slower than timed first.
  return withBaselines(sample, options, (b) => [
    ...emit(lz4Rows(items, b, options)),
    ...emit(gzipRows(items, options)),
    ...BROTLI_SETTINGS.flatMap(({ quality, lgwin }) => emit(brotliRows(sample, quality, lgwin, b, options))),
  ]);
}
