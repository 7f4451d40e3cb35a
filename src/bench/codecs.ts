/**
 * `bench codecs`: throughput of the wasm codecs against native code on the
 * same bytes, measured in the same process and run.
 *
 * Each row times one operation over a whole list of inputs (one pass = every
 * input once, each its own call, as the archive stores one response or one
 * revision per call), and its baseline times the native equivalent over the
 * very same list in the same run:
 *
 * | codec     | rows                                      | baseline                                   |
 * |-----------|-------------------------------------------|--------------------------------------------|
 * | br        | q5/lgwin 22 and q9/lgwin 24, ± dictionary | node:zlib brotli, same quality/lgwin/hint  |
 * | lz4       | level 0 (fast) and 9 (HC), block API      | native LZ4 (see native-lz4.ts)             |
 * | lz4-frame | level 0, 4 MiB linked blocks              | native LZ4 frame API, same preferences     |
 * | gzip      | level 6 (fflate)                          | node:zlib gzipSync level 6 / gunzipSync    |
 *
 * q5/lgwin 22 is the encoder's default wire setting (BROTLI_DEFAULTS); q9 with
 * a 16 MiB window is the storage setting the shared corpus itself was made
 * with. Dictionary rows compress each input of `sample.pairs` against its
 * related earlier input, passing the bytes so every call copies the
 * dictionary into the heap and prepares it (encoder) or attaches it
 * (decoder), as a revision delta against a fresh previous revision must.
 * Node's zlib has no raw-dictionary API, so their baseline is native brotli
 * *without* a dictionary on the same inputs: it shows the cost of the
 * dictionary path, not a like-for-like ratio. `dict` is a boolean; the
 * dictionaries differ per input (their sizes are in the sample).
 *
 * Throughput is uncompressed megabytes (1e6 bytes) per second for both
 * directions. `bytes_in`/`bytes_out` are the operation's own totals per pass.
 * In-process baselines alternate passes with their row (harness/timing.ts); the
 * native LZ4 harness is a separate process, timed right after its mode's
 * wasm rows. Every setting is round-tripped once before it is timed.
 */
import { brotliCompressSync, brotliDecompressSync, constants as z, gunzipSync, gzipSync } from "node:zlib";
import "../codec/install-node.ts";
import * as wasm from "../codec/index.ts";
import type { BenchSample } from "./corpus.ts";
import { comparison, compareThroughput, mbPerSecond, measure, type Comparison, type TimingPolicy } from "./harness/index.ts";
import { nativeLz4Baseline, type Lz4Mode, type NativeLz4Baseline } from "./native-lz4.ts";

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

export type CodecName = "br" | "lz4" | "lz4-frame" | "gzip";
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

export interface CodecBenchOptions {
  policy: TimingPolicy;
  /** Called as each row is finished, so a long run shows progress. */
  onRow?: (row: CodecRow) => void;
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

const sum = (xs: readonly Uint8Array[]) => xs.reduce((n, x) => n + x.byteLength, 0);
/** Throughput counts uncompressed bytes in both directions. */
const plainBytes = (spec: RowSpec) => sum(spec.op === "compress" ? spec.inputs : spec.outputs);

function assertSame(a: readonly Uint8Array[], b: readonly Uint8Array[], what: string): void {
  const equal = a.length === b.length && a.every((x, i) => Buffer.compare(x, b[i]!) === 0);
  if (!equal) throw new Error(`bench: ${what} did not round-trip`);
}

/** Packs the inputs once, checks they come back, and describes the compress and the decompress row. */
function roundTrip(head: RowHead, inputs: readonly Uint8Array[], codec: Codec, what: string): [RowSpec, RowSpec] {
  const packed = inputs.map((b, i) => codec.compress(b, i));
  assertSame(packed.map((p, i) => codec.decompress(p, i)), inputs, what);
  return [
    { ...head, op: "compress", inputs, outputs: packed, pass: () => inputs.forEach((b, i) => codec.compress(b, i)) },
    { ...head, op: "decompress", inputs: packed, outputs: inputs, pass: () => packed.forEach((p, i) => codec.decompress(p, i)) },
  ];
}

function toRow(spec: RowSpec, baseline: string, c: Comparison): CodecRow {
  const { codec, op, quality, lgwin, dict, inputs, outputs } = spec;
  const speeds = { mb_per_s: c.mbPerS, baseline: c.baselineMbPerS === null ? "none" : baseline, baseline_mb_per_s: c.baselineMbPerS };
  return { codec, op, quality, lgwin, dict, bytes_in: sum(inputs), bytes_out: sum(outputs), ...speeds, ratio_vs_baseline: c.ratio };
}

/** Times each row against the native codec run in this process on the same inputs, alternating passes. */
function againstInProcess(rows: [RowSpec, RowSpec], name: string, native: Codec, policy: TimingPolicy): CodecRow[] {
  const inputs = rows[0].inputs;
  const packed = inputs.map((b, i) => native.compress(b, i));
  const passes = [() => inputs.forEach((b, i) => native.compress(b, i)), () => packed.forEach((p, i) => native.decompress(p, i))];
  return rows.map((spec, k) => toRow(spec, name, compareThroughput(spec.pass, passes[k]!, plainBytes(spec), policy)));
}

/**
 * Native LZ4 runs in another process, so it cannot alternate with the wasm
 * passes; each mode is timed natively straight after its two wasm rows.
 */
function againstNativeLz4(rows: RowSpec[], mode: Lz4Mode, native: NativeLz4Baseline | undefined, o: CodecBenchOptions): CodecRow[] {
  const own = rows.map((spec) => mbPerSecond(plainBytes(spec), measure(spec.pass, o.policy).seconds));
  let speed: { compressMbPerS: number; decompressMbPerS: number } | undefined;
  try {
    speed = native?.speed(mode);
  } catch (err) {
    o.log?.(`bench: native LZ4 ${mode} failed: ${(err as Error).message}`);
  }
  return rows.map((spec, k) => {
    const base = speed ? (spec.op === "compress" ? speed.compressMbPerS : speed.decompressMbPerS) : null;
    return toRow(spec, native?.name ?? "none", comparison(own[k]!, base || null));
  });
}

function lz4Rows(items: readonly Uint8Array[], native: NativeLz4Baseline | undefined, o: CodecBenchOptions): CodecRow[] {
  const block = LZ4_LEVELS.flatMap(({ mode, level }) => {
    const codec = { compress: (b: Uint8Array) => wasm.lz4Compress(b, { level }), decompress: (p: Uint8Array) => wasm.lz4Decompress(p) };
    return againstNativeLz4(roundTrip({ codec: "lz4", quality: level, lgwin: null, dict: false }, items, codec, `lz4 level ${level}`), mode, native, o);
  });
  const frame = { compress: (b: Uint8Array) => wasm.lz4FrameCompress(b), decompress: (p: Uint8Array) => wasm.lz4FrameDecompress(p) };
  const frameRows = roundTrip({ codec: "lz4-frame", quality: 0, lgwin: null, dict: false }, items, frame, "lz4 frame");
  return [...block, ...againstNativeLz4(frameRows, "frame", native, o)];
}

function gzipRows(items: readonly Uint8Array[], o: CodecBenchOptions): CodecRow[] {
  const own = { compress: (b: Uint8Array) => wasm.gzipCompress(b, { level: GZIP_LEVEL }), decompress: (p: Uint8Array) => wasm.gzipDecompress(p) };
  const native = { compress: (b: Uint8Array) => gzipSync(b, { level: GZIP_LEVEL }), decompress: (p: Uint8Array) => gunzipSync(p) };
  return againstInProcess(roundTrip({ codec: "gzip", quality: GZIP_LEVEL, lgwin: null, dict: false }, items, own, "gzip"), "node-zlib-gzip", native, o.policy);
}

/**
 * Node's zlib has no raw-dictionary API, so the dictionary rows' baseline is
 * native brotli without one on the same inputs.
 */
function brotliRows(sample: BenchSample, quality: number, lgwin: number, o: CodecBenchOptions): CodecRow[] {
  const items = sample.items.map((i) => i.bytes);
  const native = {
    compress: (b: Uint8Array) => brotliCompressSync(b, { params: { [z.BROTLI_PARAM_QUALITY]: quality, [z.BROTLI_PARAM_LGWIN]: lgwin, [z.BROTLI_PARAM_SIZE_HINT]: b.byteLength } }),
    decompress: (p: Uint8Array) => brotliDecompressSync(p),
  };
  const plain = { compress: (b: Uint8Array) => wasm.brotliCompress(b, { quality, lgwin }), decompress: (p: Uint8Array) => wasm.brotliDecompress(p) };
  const rows = againstInProcess(roundTrip({ codec: "br", quality, lgwin, dict: false }, items, plain, `br q${quality}`), "node-zlib-brotli", native, o.policy);
  const { pairs } = sample;
  if (pairs.length === 0) return rows;
  const dict = {
    compress: (b: Uint8Array, i: number) => wasm.brotliCompress(b, { quality, lgwin, dictionary: pairs[i]!.dictionary }),
    decompress: (p: Uint8Array, i: number) => wasm.brotliDecompress(p, { dictionary: pairs[i]!.dictionary }),
  };
  const dictRows = roundTrip({ codec: "br", quality, lgwin, dict: true }, pairs.map((p) => p.input), dict, `br q${quality} dict`);
  return [...rows, ...againstInProcess(dictRows, "node-zlib-brotli (no dict)", native, o.policy)];
}

function withNativeLz4<T>(items: readonly Uint8Array[], o: CodecBenchOptions, use: (native: NativeLz4Baseline | undefined) => T): T {
  let native: NativeLz4Baseline | undefined;
  try {
    native = nativeLz4Baseline(items, o.policy, o.log ?? (() => {}));
  } catch (err) {
    o.log?.(`bench: no native LZ4 baseline: ${(err as Error).message}`);
  }
  try {
    return use(native);
  } finally {
    native?.dispose();
  }
}

export function benchCodecs(sample: BenchSample, options: CodecBenchOptions): CodecRow[] {
  const items = sample.items.map((i) => i.bytes);
  const emit = (rows: CodecRow[]) => {
    for (const row of rows) options.onRow?.(row);
    return rows;
  };
  if (sample.pairs.length === 0) options.log?.("bench: no input has a related earlier input to use as a dictionary; skipping the br dict rows");
  // brotli last: at q9 each call outgrows codec.recycleHeapBytes, so the
  // heap is replaced per call and hundreds of dead 30+ MiB wasm memories
  // await GC; LZ4 timed after the brotli rows ran ~2x slower than timed first.
  return [
    ...emit(withNativeLz4(items, options, (native) => lz4Rows(items, native, options))),
    ...emit(gzipRows(items, options)),
    ...BROTLI_SETTINGS.flatMap(({ quality, lgwin }) => emit(brotliRows(sample, quality, lgwin, options))),
  ];
}
