/**
 * The native brotli baseline: `brotli-bench.c` built for the host from the
 * brotli sources the wasm module is built from (the pinned sdist, patched
 * with build.sh's reduced-dictionary patch and its reduced_dict.c, with
 * build.sh's -DBROTLI_ENCODER_CLEANUP_ON_OOM) by the wasm build's compiler
 * (native-build.ts: clang-16 -O2; the wasm is -O3; the name says both).
 * Node's zlib is the other brotli baseline, but it is a different brotli
 * build and has no raw-dictionary API: this one runs the same code, so a
 * row's ratio is the cost of wasm plus the JS glue, and it is the only
 * baseline the dictionary rows have.
 *
 * Timed as the wasm rows are (same policy, median and best pass, a pass =
 * every input once, each its own call, the input's size as the size hint,
 * generic mode). Excluded natively, by design: copies into and out of the
 * wasm heap and the heap leases. Dictionary calls are timed against plain
 * calls on the same inputs with alternating passes in the one process, so
 * their ratio is what attaching a dictionary costs natively. By default each
 * dictionary is prepared once, outside the timed loop, as a per-dictionary
 * cache would; `prepare: "per-call"` prepares it inside every compress call,
 * as passing raw bytes to brotliCompress does.
 *
 * @example
 * const base = nativeBrotliBaseline(items, sample.pairs, DEFAULT_POLICY, { log: console.error });
 * base.plain({ quality: 5, lgwin: 22 }).compressMbPerS;
 * const { dict, plain } = base.dictionary({ quality: 9, lgwin: 24 });
 * dict.compressMbPerS / plain.compressMbPerS;
 * base.dispose();
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TimingPolicy } from "./harness/index.ts";
import {
  DEFAULT_COMPILER,
  nativeHarness,
  WASM_OPT,
  type NativeCompiler,
  type NativeSpeed,
  type PassSeconds,
} from "./native-build.ts";

const HARNESS = fileURLToPath(new URL("./brotli-bench.c", import.meta.url));
const CODEC_NATIVE = fileURLToPath(new URL("../../codec/native/", import.meta.url));
const PATCH = `${CODEC_NATIVE}patches/reduced-dictionary.patch`;
const REDUCED_DICT = ["reduced_dict.c", "reduced_dict.h", "pal_reduced_hook.h"].map((f) => `${CODEC_NATIVE}${f}`);

export interface BrotliSetting {
  quality: number;
  lgwin: number;
}

export interface DictionaryPair {
  input: Uint8Array;
  dictionary: Uint8Array;
}

export interface NativeBrotliSpeeds {
  /** Uncompressed bytes per pass. */
  bytes: number;
  /** Compressed bytes per pass. */
  packed: number;
  /** fnv1a64() of the compressed items in order: equal to the wasm's when both ran the same code and settings. */
  packedFnv1a64: string;
  speed: NativeSpeed;
}

export interface NativeBrotliBaseline {
  /** Goes into each row's `baseline` string. */
  name: string;
  /** Plain one-shot calls over the items. */
  plain(setting: BrotliSetting): NativeBrotliSpeeds;
  /** Over the pairs' inputs: dictionary calls and plain calls, alternating passes. Throws without pairs. */
  dictionary(setting: BrotliSetting): { dict: NativeBrotliSpeeds; plain: NativeBrotliSpeeds };
  /** Removes the temporary copies of the inputs. */
  dispose(): void;
}

export interface NativeBrotliOptions {
  log?: (msg: string) => void;
  /** Default clang-16 -O2 -DNDEBUG (DEFAULT_COMPILER). */
  compiler?: NativeCompiler;
  /** Where dictionary preparation is timed; default "once" (outside the timed loop). */
  prepare?: "once" | "per-call";
}

interface PathLine {
  packed: number;
  packed_fnv1a64: string;
  compress_seconds: PassSeconds;
  decompress_seconds: PassSeconds;
}

interface HarnessLine {
  quality: number;
  lgwin: number;
  bytes: number;
  plain: PathLine;
  dict?: PathLine;
}

/** The .c files of a directory, in build.sh's order. */
function cSources(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".c"))
    .sort()
    .map((f) => join(dir, f));
}

/** build.sh's patch: with no reduced dictionary attached it changes no output, but it is the code the wasm runs. */
function applyPatch(root: string): void {
  const run = spawnSync("patch", ["--quiet", "--forward", "-p1", "-d", root, "-i", PATCH], { encoding: "utf8" });
  if (run.error) throw new Error(`patch not found (apt-get install patch): ${run.error.message}`);
  if (run.status !== 0) throw new Error(`patch ${PATCH} failed: ${(run.stdout + run.stderr).trim().slice(0, 300)}`);
}

/** Builds (or reuses) the harness and writes the inputs; throws naming what is missing (compiler, sdist). */
export function nativeBrotliBaseline(
  items: readonly Uint8Array[],
  pairs: readonly DictionaryPair[],
  policy: TimingPolicy,
  options: NativeBrotliOptions = {},
): NativeBrotliBaseline {
  const compiler = options.compiler ?? DEFAULT_COMPILER;
  const prepare = options.prepare ?? "once";
  const harness = nativeHarness(
    {
      name: "brotli-bench",
      harness: HARNESS,
      sdist: "BROTLI",
      extract: ["*/c/common/*", "*/c/dec/*", "*/c/enc/*", "*/c/include/*"],
      prepare: (root) => applyPatch(root),
      args: (root) => [
        "-DBROTLI_ENCODER_CLEANUP_ON_OOM",
        `-I${root}/c/include`,
        `-I${root}/c`,
        `-I${CODEC_NATIVE}`,
        ...["common", "dec", "enc"].flatMap((dir) => cSources(join(root, "c", dir))),
        REDUCED_DICT[0]!,
        "-lm",
      ],
      inputs: [PATCH, ...REDUCED_DICT],
    },
    compiler,
    policy,
    options.log ?? (() => {}),
  );
  const name = `native-brotli (${harness.sdistVersion} as build.sh patches it, ${harness.compiler}; wasm ${WASM_OPT.brotli})`;
  const { scratch } = harness;
  try {
    const all = scratch.concat("items", items);
    const inputs = scratch.concat(
      "inputs",
      pairs.map((p) => p.input),
    );
    const dicts = scratch.concat(
      "dicts",
      pairs.map((p) => p.dictionary),
    );
    const run = (files: { data: string; sizes: string }, s: BrotliSetting, extra: string[]) =>
      harness.run<HarnessLine>(files, [String(s.quality), String(s.lgwin)], extra);
    const speeds = (bytes: number, p: PathLine): NativeBrotliSpeeds => ({
      bytes,
      packed: p.packed,
      packedFnv1a64: p.packed_fnv1a64,
      speed: harness.speed(bytes, p),
    });
    return {
      name,
      plain(setting) {
        const line = run(all, setting, []);
        return speeds(line.bytes, line.plain);
      },
      dictionary(setting) {
        if (pairs.length === 0) throw new Error("no dictionary pairs to time");
        const line = run(inputs, setting, [dicts.data, dicts.sizes, prepare]);
        if (!line.dict) throw new Error("brotli-bench printed no dict timing");
        return { dict: speeds(line.bytes, line.dict), plain: speeds(line.bytes, line.plain) };
      },
      dispose: scratch.dispose,
    };
  } catch (err) {
    scratch.dispose();
    throw err;
  }
}
