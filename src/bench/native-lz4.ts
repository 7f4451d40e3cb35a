/**
 * The native LZ4 baseline. Preferred: `lz4-bench.c` built for the host from
 * the very lz4libs sources the wasm module is built from (the pinned PyPI
 * sdist that `npm run build:wasm` caches), so wasm and native differ only in
 * target and in the JS glue. Fallback: the `lz4` command's own benchmark
 * mode (`lz4 -bN`), which times the block API only, takes the best of its
 * loops rather than the median, and is whatever version the system has.
 *
 * @example
 * const base = nativeLz4Baseline(items, DEFAULT_POLICY, console.error);
 * base.speed("fast").decompressMbPerS;
 * base.dispose();
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mbPerSecond, type TimingPolicy } from "./harness/index.ts";

export type Lz4Mode = "fast" | "hc9" | "frame";

export interface Lz4Speed {
  compressMbPerS: number;
  decompressMbPerS: number;
}

/**
 * Times one mode on demand, so the bench can run each native measurement
 * right beside its wasm row (the machine's load drifts; neighbours share it).
 */
export interface NativeLz4Baseline {
  /** Goes into each row's `baseline` string. */
  name: string;
  speed(mode: Lz4Mode): Lz4Speed;
  /** Removes the temporary copies of the inputs. */
  dispose(): void;
}

const HARNESS = fileURLToPath(new URL("./lz4-bench.c", import.meta.url));
const SOURCES_ENV = fileURLToPath(new URL("../codec/native/sources.env", import.meta.url));
const LZ4_SOURCES = ["lz4.c", "lz4hc.c", "lz4frame.c", "xxhash.c"];
// The wasm build's optimisation level, minus the wasm-only flags; no -march=native,
// so the baseline is what a portable x86-64/arm64 build gets, like distro packages.
const NATIVE_CFLAGS = ["-O3", "-DNDEBUG"];

function cacheRoot(): string {
  return process.env.PALIMPSEST_CACHE ?? join(homedir(), ".cache", "palimpsest");
}

/** Throws if neither baseline can be had; callers report it and carry on without one. */
export function nativeLz4Baseline(items: readonly Uint8Array[], policy: TimingPolicy, log: (msg: string) => void): NativeLz4Baseline {
  let harness: { binary: string; name: string };
  try {
    harness = buildHarness(log);
  } catch (err) {
    log(`bench: native LZ4 build unavailable (${(err as Error).message}); falling back to the lz4 CLI's -b mode`);
    return lz4CliBaseline(items, policy);
  }
  const files = writeItemFiles(items, false);
  return {
    name: harness.name,
    speed: (mode) => runHarness(harness.binary, files, mode, policy),
    dispose: files.dispose,
  };
}

function lz4Sdist(): { file: string; sha256: string; version: string } {
  const env = readFileSync(SOURCES_ENV, "utf8");
  const get = (key: string) => /^(\w+)=(.*)$/m.exec(env.split("\n").find((l) => l.startsWith(`${key}=`)) ?? "")?.[2]?.trim();
  const file = get("LZ4_FILE");
  const sha256 = get("LZ4_SHA256");
  if (!file || !sha256) throw new Error(`LZ4_FILE/LZ4_SHA256 not found in ${SOURCES_ENV}`);
  const path = join(cacheRoot(), "sdist", file);
  if (!existsSync(path)) throw new Error(`${path} not cached; run npm run build:wasm once`);
  const bytes = readFileSync(path);
  if (createHash("sha256").update(bytes).digest("hex") !== sha256) throw new Error(`${path} does not match LZ4_SHA256`);
  return { file: path, sha256, version: file.replace(/\.tar\.gz$/, "") };
}

function findCompiler(): string {
  for (const cc of [process.env.CC, "cc", "gcc", "clang", "clang-16"]) {
    if (cc && spawnSync(cc, ["--version"], { stdio: "ignore" }).status === 0) return cc;
  }
  throw new Error("no C compiler (cc, gcc, clang, clang-16)");
}

/** Builds once per (sources, harness, compiler, flags) into the cache; later runs reuse the binary. */
function buildHarness(log: (msg: string) => void): { binary: string; name: string } {
  const sdist = lz4Sdist();
  const cc = findCompiler();
  const ccVersion = spawnSync(cc, ["--version"], { encoding: "utf8" }).stdout.split("\n")[0] ?? cc;
  const key = createHash("sha256")
    .update([sdist.sha256, readFileSync(HARNESS, "utf8"), ccVersion, NATIVE_CFLAGS.join(" ")].join("\0"))
    .digest("hex")
    .slice(0, 16);
  const dir = join(cacheRoot(), "bench");
  const binary = join(dir, `lz4-bench-${key}`);
  const name = `native-lz4 (${sdist.version} lz4libs, ${cc} ${NATIVE_CFLAGS.join(" ")})`;
  if (existsSync(binary)) return { binary, name };
  log(`bench: building the native LZ4 baseline from ${sdist.file} with ${cc}`);
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "palimpsest-lz4-"));
  try {
    const untar = spawnSync("tar", ["-xzf", sdist.file, "-C", work, "--wildcards", "*/lz4libs/*"], { encoding: "utf8" });
    if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr.trim()}`);
    const libs = join(work, sdist.version, "lz4libs");
    const tmpBinary = join(work, "lz4-bench");
    const args = [...NATIVE_CFLAGS, `-I${libs}`, HARNESS, ...LZ4_SOURCES.map((f) => join(libs, f)), "-o", tmpBinary];
    const cc1 = spawnSync(cc, args, { encoding: "utf8" });
    if (cc1.status !== 0) throw new Error(`${cc} failed: ${cc1.stderr.trim().split("\n").slice(0, 3).join(" ")}`);
    // Rename into place so a concurrent run never executes a half-written binary.
    renameSync(tmpBinary, binary);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { binary, name };
}

interface ItemFiles {
  /** The items concatenated, and their sizes one per line: the harness's input. */
  data: string;
  sizes: string;
  /** One file per item, for `lz4 -b`, so it cuts blocks at item boundaries as our per-item calls do. */
  each: string[];
  dispose(): void;
}

function writeItemFiles(items: readonly Uint8Array[], each: boolean): ItemFiles {
  const dir = mkdtempSync(join(tmpdir(), "palimpsest-bench-"));
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  try {
    const data = join(dir, "items.bin");
    const sizes = join(dir, "sizes.txt");
    writeFileSync(data, Buffer.concat(items.map((i) => Buffer.from(i.buffer, i.byteOffset, i.byteLength))));
    writeFileSync(sizes, items.map((i) => i.byteLength).join("\n") + "\n");
    const files = each
      ? items.map((bytes, i) => {
          const f = join(dir, `item-${i}`);
          writeFileSync(f, bytes);
          return f;
        })
      : [];
    return { data, sizes, each: files, dispose };
  } catch (err) {
    dispose();
    throw err;
  }
}

interface HarnessLine {
  mode: Lz4Mode;
  bytes: number;
  compress_seconds: number;
  decompress_seconds: number;
}

function runHarness(binary: string, files: ItemFiles, mode: Lz4Mode, policy: TimingPolicy): Lz4Speed {
  const args = [files.data, files.sizes, mode, policy.warmupPasses, policy.minPasses, policy.maxPasses, policy.minSeconds].map(String);
  const run = spawnSync(binary, args, { encoding: "utf8", maxBuffer: 1 << 20 });
  if (run.status !== 0) throw new Error(`${binary} ${mode} failed: ${run.stderr.trim() || `exit ${run.status}`}`);
  const r = JSON.parse(run.stdout) as HarnessLine;
  return { compressMbPerS: mbPerSecond(r.bytes, r.compress_seconds), decompressMbPerS: mbPerSecond(r.bytes, r.decompress_seconds) };
}

/**
 * `lz4 -bN -iI FILES...` prints, on stderr and with \r-separated progress
 * updates, lines such as
 *   ` 1#2 files          :    140698 ->     39319 (3.578),2038.4 MB/s ,8214.0 MB/s`
 * (lz4 1.9.4; MB = 1e6 bytes, checked against the native harness). The last
 * line carrying both speeds is the result. It has no frame mode, so frame
 * rows get the block speeds, and the row's baseline string says so.
 */
export function parseLz4CliBench(stderr: string): Lz4Speed {
  const re = /(\d+)\s*->\s*(\d+)\s*\(\s*[\d.]+\)\s*,\s*([\d.]+)\s*MB\/s\s*,\s*([\d.]+)\s*MB\/s/g;
  let last: RegExpExecArray | undefined;
  for (let m = re.exec(stderr); m; m = re.exec(stderr)) last = m;
  if (!last) throw new Error(`could not find "MB/s ,MB/s" in lz4 -b output: ${JSON.stringify(stderr.slice(-200))}`);
  return { compressMbPerS: Number(last[3]), decompressMbPerS: Number(last[4]) };
}

export function lz4CliBaseline(items: readonly Uint8Array[], policy: TimingPolicy): NativeLz4Baseline {
  const version = spawnSync("lz4", ["--version"], { encoding: "utf8" });
  if (version.error || version.status !== 0) throw new Error("neither a native LZ4 build nor the lz4 command is available");
  const v = /v(\d+\.\d+\.\d+)/.exec(version.stdout + version.stderr)?.[1] ?? "?";
  // lz4's -iN times for about N seconds per direction; -i0 is one untimed-minimum pass, enough for --quick.
  const loops = policy.minSeconds < 0.1 ? 0 : 3;
  const files = writeItemFiles(items, true);
  const speed = (mode: Lz4Mode): Lz4Speed => {
    const level = mode === "hc9" ? 9 : 1;
    const run = spawnSync("lz4", [`-b${level}`, `-i${loops}`, ...files.each], { encoding: "utf8", maxBuffer: 16 << 20 });
    if (run.status !== 0) throw new Error(`lz4 -b${level} failed: ${run.stderr.trim().slice(-200)}`);
    return parseLz4CliBench(run.stderr);
  };
  const how = loops === 0 ? "one pass" : `best of ${loops} loops`;
  return { name: `lz4-cli ${v} -b (block API, ${how})`, speed, dispose: files.dispose };
}
