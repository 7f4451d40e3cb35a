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
 * In-process baselines alternate passes with their row (see timing.ts); the
 * native LZ4 harness is a separate process, timed right after its mode's
 * wasm rows. Every setting is round-tripped once before it is timed.
 */
import { brotliCompressSync, brotliDecompressSync, constants as z, gunzipSync, gzipSync } from "node:zlib";
import "../codec/install-node.ts";
import {
  brotliCompress,
  brotliDecompress,
  gzipCompress,
  gzipDecompress,
  lz4Compress,
  lz4Decompress,
  lz4FrameCompress,
  lz4FrameDecompress,
} from "../codec/index.ts";
import type { BenchSample } from "./corpus.ts";
import { nativeLz4Baseline, type Lz4Mode, type Lz4Speed, type NativeLz4Baseline } from "./native-lz4.ts";
import { mbPerSecond, measure, measurePair, type TimingPolicy } from "./timing.ts";

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

const sum = (xs: readonly Uint8Array[]) => xs.reduce((n, x) => n + x.byteLength, 0);

/** Rounded for printing. */
function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

interface Spec {
  codec: CodecName;
  op: CodecOp;
  quality: number | null;
  lgwin: number | null;
  dict: boolean;
  inputs: readonly Uint8Array[];
  outputs: readonly Uint8Array[];
  /** Uncompressed bytes per pass, the throughput numerator. */
  plainBytes: number;
  pass: () => void;
  baseline: { name: string; mbPerS: number } | { name: string; pass: () => void } | undefined;
}

function assertSame(a: readonly Uint8Array[], b: readonly Uint8Array[], what: string): void {
  const equal = a.length === b.length && a.every((x, i) => Buffer.compare(x, b[i]!) === 0);
  if (!equal) throw new Error(`bench: ${what} did not round-trip`);
}

class CodecBench {
  readonly rows: CodecRow[] = [];
  readonly #opts: CodecBenchOptions;
  readonly #log: (msg: string) => void;

  constructor(
    private readonly sample: BenchSample,
    options: CodecBenchOptions,
  ) {
    this.#opts = options;
    this.#log = options.log ?? (() => {});
  }

  run(): CodecRow[] {
    // brotli last: at q9 each call outgrows codec.recycleHeapBytes, so the
    // heap is replaced per call and hundreds of dead 30+ MiB wasm memories
    // await GC; LZ4 timed after the brotli rows ran ~2x slower than timed first.
    this.#lz4();
    this.#gzip();
    this.#brotli();
    return this.rows;
  }

  /** Times the row (and its in-process baseline, alternating) unless the caller already did. */
  #emit(spec: Spec, measuredMbPerS?: number): void {
    const { policy } = this.#opts;
    let mb: number;
    let base: number | null = null;
    if (spec.baseline && "pass" in spec.baseline) {
      const [own, native] = measurePair(spec.pass, spec.baseline.pass, policy);
      mb = mbPerSecond(spec.plainBytes, own.seconds);
      base = mbPerSecond(spec.plainBytes, native.seconds);
    } else {
      mb = measuredMbPerS ?? mbPerSecond(spec.plainBytes, measure(spec.pass, policy).seconds);
      base = spec.baseline?.mbPerS ?? null;
    }
    // The ratio is taken from the printed speeds, so readers can check it.
    const mbRounded = round(mb, 3);
    const baseRounded = base === null ? null : round(base, 3);
    const row: CodecRow = {
      codec: spec.codec,
      op: spec.op,
      quality: spec.quality,
      lgwin: spec.lgwin,
      dict: spec.dict,
      bytes_in: sum(spec.inputs),
      bytes_out: sum(spec.outputs),
      mb_per_s: mbRounded,
      baseline: spec.baseline?.name ?? "none",
      baseline_mb_per_s: baseRounded,
      ratio_vs_baseline: baseRounded ? round(mbRounded / baseRounded, 4) : null,
    };
    this.rows.push(row);
    this.#opts.onRow?.(row);
  }

  #brotli(): void {
    const items = this.sample.items.map((i) => i.bytes);
    const pairs = this.sample.pairs;
    if (pairs.length === 0) this.#log("bench: no input has a related earlier input to use as a dictionary; skipping the br dict rows");
    for (const { quality, lgwin } of BROTLI_SETTINGS) {
      const native = (b: Uint8Array) =>
        brotliCompressSync(b, {
          params: { [z.BROTLI_PARAM_QUALITY]: quality, [z.BROTLI_PARAM_LGWIN]: lgwin, [z.BROTLI_PARAM_SIZE_HINT]: b.byteLength },
        });
      const common = { codec: "br", quality, lgwin } as const;

      const packed = items.map((b) => brotliCompress(b, { quality, lgwin }));
      assertSame(packed.map((p) => brotliDecompress(p)), items, `br q${quality}`);
      this.#emit({
        ...common,
        op: "compress",
        dict: false,
        inputs: items,
        outputs: packed,
        plainBytes: sum(items),
        pass: () => items.forEach((b) => brotliCompress(b, { quality, lgwin })),
        baseline: { name: "node-zlib-brotli", pass: () => items.forEach(native) },
      });
      this.#emit({
        ...common,
        op: "decompress",
        dict: false,
        inputs: packed,
        outputs: items,
        plainBytes: sum(items),
        pass: () => packed.forEach((p) => brotliDecompress(p)),
        baseline: { name: "node-zlib-brotli", pass: () => packed.forEach((p) => brotliDecompressSync(p)) },
      });

      if (pairs.length === 0) continue;
      const inputs = pairs.map((p) => p.input);
      const dictPacked = pairs.map((p) => brotliCompress(p.input, { quality, lgwin, dictionary: p.dictionary }));
      assertSame(dictPacked.map((d, i) => brotliDecompress(d, { dictionary: pairs[i]!.dictionary })), inputs, `br q${quality} dict`);
      const nativePacked = inputs.map(native);
      this.#emit({
        ...common,
        op: "compress",
        dict: true,
        inputs,
        outputs: dictPacked,
        plainBytes: sum(inputs),
        pass: () => pairs.forEach((p) => brotliCompress(p.input, { quality, lgwin, dictionary: p.dictionary })),
        baseline: { name: "node-zlib-brotli (no dict)", pass: () => inputs.forEach(native) },
      });
      this.#emit({
        ...common,
        op: "decompress",
        dict: true,
        inputs: dictPacked,
        outputs: inputs,
        plainBytes: sum(inputs),
        pass: () => dictPacked.forEach((d, i) => brotliDecompress(d, { dictionary: pairs[i]!.dictionary })),
        baseline: { name: "node-zlib-brotli (no dict)", pass: () => nativePacked.forEach((p) => brotliDecompressSync(p)) },
      });
    }
  }

  #lz4(): void {
    const items = this.sample.items.map((i) => i.bytes);
    const plainBytes = sum(items);
    let native: NativeLz4Baseline | undefined;
    try {
      native = nativeLz4Baseline(items, this.#opts.policy, this.#log);
    } catch (err) {
      this.#log(`bench: no native LZ4 baseline: ${(err as Error).message}`);
    }
    // Native runs in another process, so it cannot alternate with the wasm
    // passes; each mode is timed natively straight after its two wasm rows.
    const rowsWithNative = (mode: Lz4Mode, rows: Omit<Spec, "baseline">[]) => {
      const timed = rows.map((spec) => ({ spec, mb: mbPerSecond(spec.plainBytes, measure(spec.pass, this.#opts.policy).seconds) }));
      let speed: Lz4Speed | undefined;
      try {
        speed = native?.speed(mode);
      } catch (err) {
        this.#log(`bench: native LZ4 ${mode} failed: ${(err as Error).message}`);
      }
      for (const { spec, mb } of timed) {
        const mbPerS = speed && (spec.op === "compress" ? speed.compressMbPerS : speed.decompressMbPerS);
        this.#emit({ ...spec, baseline: native && mbPerS ? { name: native.name, mbPerS } : undefined }, mb);
      }
    };
    try {
      for (const { mode, level } of LZ4_LEVELS) {
        const packed = items.map((b) => lz4Compress(b, { level }));
        assertSame(packed.map((p) => lz4Decompress(p)), items, `lz4 level ${level}`);
        const common = { codec: "lz4", quality: level, lgwin: null, dict: false, plainBytes } as const;
        rowsWithNative(mode, [
          { ...common, op: "compress", inputs: items, outputs: packed, pass: () => items.forEach((b) => lz4Compress(b, { level })) },
          { ...common, op: "decompress", inputs: packed, outputs: items, pass: () => packed.forEach((p) => lz4Decompress(p)) },
        ]);
      }
      const frames = items.map((b) => lz4FrameCompress(b));
      assertSame(frames.map((f) => lz4FrameDecompress(f)), items, "lz4 frame");
      const common = { codec: "lz4-frame", quality: 0, lgwin: null, dict: false, plainBytes } as const;
      rowsWithNative("frame", [
        { ...common, op: "compress", inputs: items, outputs: frames, pass: () => items.forEach((b) => lz4FrameCompress(b)) },
        { ...common, op: "decompress", inputs: frames, outputs: items, pass: () => frames.forEach((f) => lz4FrameDecompress(f)) },
      ]);
    } finally {
      native?.dispose();
    }
  }

  #gzip(): void {
    const items = this.sample.items.map((i) => i.bytes);
    const packed = items.map((b) => gzipCompress(b, { level: GZIP_LEVEL }));
    assertSame(packed.map((p) => gzipDecompress(p)), items, "gzip");
    const common = { codec: "gzip", quality: GZIP_LEVEL, lgwin: null, dict: false, plainBytes: sum(items) } as const;
    this.#emit({
      ...common,
      op: "compress",
      inputs: items,
      outputs: packed,
      pass: () => items.forEach((b) => gzipCompress(b, { level: GZIP_LEVEL })),
      baseline: { name: "node-zlib-gzip", pass: () => items.forEach((b) => gzipSync(b, { level: GZIP_LEVEL })) },
    });
    this.#emit({
      ...common,
      op: "decompress",
      inputs: packed,
      outputs: items,
      pass: () => packed.forEach((p) => gzipDecompress(p)),
      baseline: { name: "node-zlib-gzip", pass: () => packed.forEach((p) => gunzipSync(p)) },
    });
  }
}

export function benchCodecs(sample: BenchSample, options: CodecBenchOptions): CodecRow[] {
  return new CodecBench(sample, options).run();
}
