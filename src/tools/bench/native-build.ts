/**
 * Builds and runs the native codec harnesses (lz4-bench.c, brotli-bench.c)
 * that `bench codecs` measures the wasm modules against. A baseline is only
 * fair if it runs the same code as the wasm: so the sources are the pinned
 * sdists `npm run build:wasm` caches (sha256-checked against sources.env,
 * never whatever the system has), the compiler is the one build.sh uses
 * (clang-16), at -O2 as the issue asks (build.sh uses -O3; the baseline names
 * say both), with no -march=native so the host code is what a portable
 * x86-64/arm64 build gets. The timing loop itself is native-bench.h, shared
 * by both harnesses. Binaries are cached by a hash of everything that goes
 * into them, so only the first run pays for the build.
 *
 * @example
 * const binary = buildHarness({ name: "lz4-bench", ... }, DEFAULT_COMPILER, log);
 * const scratch = scratchDir();
 * const { data, sizes } = scratch.concat("items", items);
 * const line = runJsonHarness(binary, [data, sizes, ...]);
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { mbPerSecond, type TimingPolicy } from "./harness/index.ts";

const SOURCES_ENV = fileURLToPath(new URL("../../codec/native/sources.env", import.meta.url));
const BENCH_HEADER = fileURLToPath(new URL("./native-bench.h", import.meta.url));

export interface NativeCompiler {
  cc: string;
  flags: readonly string[];
}

/** build.sh's compiler at the issue's -O2; -DNDEBUG as build.sh has it. */
export const DEFAULT_COMPILER: NativeCompiler = { cc: "clang-16", flags: ["-O2", "-DNDEBUG"] };
/** build.sh's optimisation levels, for the baseline names. */
export const WASM_OPT = { lz4: "-O3", brotli: "-O3, decoder -O2" } as const;

export function cacheRoot(): string {
  return process.env.PALIMPSEST_CACHE ?? join(homedir(), ".cache", "palimpsest");
}

export interface Sdist {
  /** The cached tarball. */
  file: string;
  sha256: string;
  /** The tarball's top directory, e.g. "brotli-1.2.1". */
  version: string;
}

/** The pinned sdist named by `<PREFIX>_FILE`/`<PREFIX>_SHA256` in sources.env, from the cache, checked. */
export function pinnedSdist(prefix: "BROTLI" | "LZ4"): Sdist {
  const env = readFileSync(SOURCES_ENV, "utf8");
  const get = (key: string) => new RegExp(`^${key}=(.*)$`, "m").exec(env)?.[1]?.trim();
  const file = get(`${prefix}_FILE`);
  const sha256 = get(`${prefix}_SHA256`);
  if (!file || !sha256) throw new Error(`${prefix}_FILE/${prefix}_SHA256 not found in ${SOURCES_ENV}`);
  const path = join(cacheRoot(), "sdist", file);
  if (!existsSync(path)) throw new Error(`the pinned ${file} is not cached at ${path}; run npm run build:wasm once`);
  if (createHash("sha256").update(readFileSync(path)).digest("hex") !== sha256) {
    throw new Error(`${path} does not match ${prefix}_SHA256 in sources.env; delete it and run npm run build:wasm`);
  }
  return { file: path, sha256, version: file.replace(/\.tar\.gz$/, "") };
}

/** The compiler's first --version line; throws naming the compiler if it cannot be run. */
export function compilerVersion(cc: string): string {
  const run = spawnSync(cc, ["--version"], { encoding: "utf8" });
  if (run.error || run.status !== 0)
    throw new Error(`C compiler ${cc} not found (apt-get install ${cc.startsWith("clang") ? cc : "clang-16"})`);
  return run.stdout.split("\n")[0]?.trim() || cc;
}

/** "clang-16 16.0.6 -O2 -DNDEBUG", for baseline names. */
export function describeCompiler(compiler: NativeCompiler): string {
  const version = /version (\d+\.\d+\.\d+)/.exec(compilerVersion(compiler.cc))?.[1];
  return [compiler.cc, version, ...compiler.flags].filter(Boolean).join(" ");
}

export interface HarnessSpec {
  /** Names the cached binary and the log line. */
  name: string;
  /** The harness's C file (it includes native-bench.h). */
  harness: string;
  sdist: Sdist;
  /** tar wildcards for the sdist members the build needs. */
  extract: readonly string[];
  /** Run in the extracted sdist's top directory before compiling (e.g. applying build.sh's patch). */
  prepare?(root: string): void;
  /** Further compiler arguments (defines, -I, sources, libraries), given the extracted sdist's top directory. */
  args(root: string): string[];
  /** Our own files the build reads besides the harness (patches, sources), so a change to one rebuilds. */
  inputs?: readonly string[];
}

/** Builds once per (sdist, harness, inputs, compiler, flags) into the cache; later runs reuse the binary. */
export function buildHarness(spec: HarnessSpec, compiler: NativeCompiler, log: (msg: string) => void): string {
  const version = compilerVersion(compiler.cc);
  const hash = createHash("sha256").update(spec.sdist.sha256).update(version).update(compiler.flags.join(" "));
  for (const file of [spec.harness, BENCH_HEADER, ...(spec.inputs ?? [])]) hash.update("\0").update(readFileSync(file));
  const dir = join(cacheRoot(), "bench");
  const binary = join(dir, `${spec.name}-${hash.digest("hex").slice(0, 16)}`);
  if (existsSync(binary)) return binary;
  log(`bench: building ${spec.name} from ${spec.sdist.file} with ${compiler.cc} ${compiler.flags.join(" ")}`);
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), `palimpsest-${spec.name}-`));
  try {
    const untar = spawnSync("tar", ["-xzf", spec.sdist.file, "-C", work, "--wildcards", ...spec.extract], {
      encoding: "utf8",
    });
    if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr.trim()}`);
    const root = join(work, spec.sdist.version);
    spec.prepare?.(root);
    const out = join(work, spec.name);
    const args = [...compiler.flags, `-I${dirname(BENCH_HEADER)}`, spec.harness, ...spec.args(root), "-o", out];
    const cc = spawnSync(compiler.cc, args, { encoding: "utf8", maxBuffer: 16 << 20 });
    if (cc.status !== 0)
      throw new Error(`${compiler.cc} failed: ${cc.stderr.trim().split("\n").slice(0, 3).join(" ")}`);
    // Rename into place so a concurrent run never executes a half-written binary.
    renameSync(out, binary);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return binary;
}

/** Where a harness's inputs are written; the files go when it is disposed. */
export interface ScratchDir {
  /** The items back to back and their sizes one per line: what read_blobs() in native-bench.h reads. */
  concat(name: string, items: readonly Uint8Array[]): { data: string; sizes: string };
  /** One file per item (for tools such as `lz4 -b` that take files). */
  each(name: string, items: readonly Uint8Array[]): string[];
  dispose(): void;
}

export function scratchDir(): ScratchDir {
  const dir = mkdtempSync(join(tmpdir(), "palimpsest-bench-"));
  const bytes = (i: Uint8Array) => Buffer.from(i.buffer, i.byteOffset, i.byteLength);
  return {
    concat(name, items) {
      const data = join(dir, `${name}.bin`);
      const sizes = join(dir, `${name}.sizes`);
      writeFileSync(data, Buffer.concat(items.map(bytes)));
      writeFileSync(sizes, items.map((i) => i.byteLength).join("\n") + "\n");
      return { data, sizes };
    },
    each(name, items) {
      return items.map((item, i) => {
        const file = join(dir, `${name}-${i}`);
        writeFileSync(file, bytes(item));
        return file;
      });
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** WARMUP MIN_PASSES MAX_PASSES MIN_SECONDS, as the harnesses take them. */
export function policyArgs(policy: TimingPolicy): string[] {
  return [policy.warmupPasses, policy.minPasses, policy.maxPasses, policy.minSeconds].map(String);
}

/** Runs a harness and parses the one JSON line it prints; its stderr is the error otherwise. */
export function runJsonHarness<T>(binary: string, args: readonly string[]): T {
  const run = spawnSync(binary, args, { encoding: "utf8", maxBuffer: 1 << 20 });
  if (run.error) throw new Error(`${binary}: ${run.error.message}`);
  if (run.status !== 0) throw new Error(`${binary} exited ${run.status}: ${run.stderr.trim()}`);
  return JSON.parse(run.stdout) as T;
}

/** What a built harness needs to time items: where its inputs go, and one call that runs it on them. */
export interface NativeHarness {
  /** For the baseline's name: the sdist's top directory ("brotli-1.2.1") and describeCompiler() ("clang-16 16.0.6 -O2 -DNDEBUG"). */
  sdistVersion: string;
  compiler: string;
  scratch: ScratchDir;
  /** Runs the harness on written items: DATA SIZES, then `settings`, the policy's four numbers, then `extra`. */
  run<T>(files: { data: string; sizes: string }, settings: readonly string[], extra?: readonly string[]): T;
  /** Speeds from a harness line's compress and decompress seconds over `bytes`, by the policy's statistic. */
  speed(bytes: number, line: { compress_seconds: PassSeconds; decompress_seconds: PassSeconds }): NativeSpeed;
}

/** Builds (or reuses) a harness from a pinned sdist and gives it a scratch directory; throws naming what is missing. */
export function nativeHarness(
  spec: Omit<HarnessSpec, "sdist"> & { sdist: "BROTLI" | "LZ4" },
  compiler: NativeCompiler,
  policy: TimingPolicy,
  log: (msg: string) => void,
): NativeHarness {
  const sdist = pinnedSdist(spec.sdist);
  const binary = buildHarness({ ...spec, sdist }, compiler, log);
  const described = describeCompiler(compiler);
  return {
    sdistVersion: sdist.version,
    compiler: described,
    scratch: scratchDir(),
    run: (files, settings, extra = []) =>
      runJsonHarness(binary, [files.data, files.sizes, ...settings, ...policyArgs(policy), ...extra]),
    speed: (bytes, line) => nativeSpeed(bytes, line.compress_seconds, line.decompress_seconds, policy),
  };
}

/**
 * FNV-1a, 64-bit, over the chunks in order, as fnv1a64() in native-bench.h:
 * lets a caller check a native harness wrote the very bytes the wasm did.
 * In two 32-bit halves (prime = 2^40 + 0x1b3), as plain numbers stay exact below 2^53.
 */
export function fnv1a64(chunks: readonly Uint8Array[]): string {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (const chunk of chunks) {
    for (const byte of chunk) {
      lo = (lo ^ byte) >>> 0;
      const low = lo * 0x1b3;
      hi = (hi * 0x1b3 + Math.floor(low / 0x1_0000_0000) + ((lo << 8) >>> 0)) >>> 0;
      lo = low >>> 0;
    }
  }
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}

/** Seconds per pass as native-bench.h's print_stat() writes them. */
export interface PassSeconds {
  median: number;
  best: number;
  passes: number;
}

export interface Throughput {
  compressMbPerS: number;
  decompressMbPerS: number;
}

/**
 * A native baseline's speeds. The top-level pair is the statistic the bench
 * reports (the policy's: the median pass unless it asks for the best), so a
 * row compares like with like; both are kept for the reader.
 */
export interface NativeSpeed extends Throughput {
  /** null where the tool reports only its fastest pass (lz4 -b). */
  median: Throughput | null;
  best: Throughput;
  /** Timed passes each way; null where the tool does not say. */
  passes: { compress: number; decompress: number } | null;
}

/** Speeds from a harness's compress and decompress seconds over `bytes` uncompressed bytes. */
export function nativeSpeed(
  bytes: number,
  compress: PassSeconds,
  decompress: PassSeconds,
  policy: TimingPolicy,
): NativeSpeed {
  const median = {
    compressMbPerS: mbPerSecond(bytes, compress.median),
    decompressMbPerS: mbPerSecond(bytes, decompress.median),
  };
  const best = {
    compressMbPerS: mbPerSecond(bytes, compress.best),
    decompressMbPerS: mbPerSecond(bytes, decompress.best),
  };
  const headline = policy.statistic === "best" ? best : median;
  return { ...headline, median, best, passes: { compress: compress.passes, decompress: decompress.passes } };
}
