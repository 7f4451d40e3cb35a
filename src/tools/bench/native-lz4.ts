/**
 * The native LZ4 baselines, two of them, so a run can print both:
 *
 * - `nativeLz4Baseline`: `lz4-bench.c` built for the host from the very
 *   lz4libs sources the wasm module is built from, with the wasm build's
 *   compiler (native-build.ts: clang-16 -O2; the wasm is -O3), timed pass by
 *   pass exactly as the wasm rows are (median and best of the same policy).
 *   Wasm and native then differ only in target and in the JS glue, which the
 *   native side leaves out by design: that overhead is what the row shows.
 * - `lz4CliBaseline`: the `lz4` command's own benchmark (`lz4 -bN`), the
 *   number people quote: block API only, its fastest loop rather than the
 *   median, whatever version and build the system has. A sanity check on the
 *   first, not a like-for-like baseline.
 *
 * When the native build cannot be had (no clang-16, sdist not cached),
 * `nativeLz4Baseline` says why through `log` and returns the CLI baseline,
 * whose name says what it is.
 *
 * @example
 * const base = nativeLz4Baseline(items, DEFAULT_POLICY, console.error);
 * base.speed("fast").decompressMbPerS; // median pass
 * base.speed("fast").best.decompressMbPerS;
 * base.dispose();
 */
import { spawnSync } from "node:child_process";
import { errorMessage } from "../../lib/errors.ts";
import { fileURLToPath } from "node:url";
import type { TimingPolicy } from "./harness/index.ts";
import {
  DEFAULT_COMPILER,
  nativeHarness,
  scratchDir,
  WASM_OPT,
  type NativeCompiler,
  type NativeHarness,
  type NativeSpeed,
  type PassSeconds,
} from "./native-build.ts";

export type { NativeSpeed } from "./native-build.ts";
export type Lz4Mode = "fast" | "hc9" | "frame";

/**
 * Times one mode on demand, so the bench can run each native measurement
 * right beside its wasm row (the machine's load drifts; neighbours share it).
 */
export interface NativeLz4Baseline {
  /** Goes into each row's `baseline` string. */
  name: string;
  speed(mode: Lz4Mode): NativeSpeed;
  /** Removes the temporary copies of the inputs. */
  dispose(): void;
}

const HARNESS = fileURLToPath(new URL("./lz4-bench.c", import.meta.url));
const LZ4_SOURCES = ["lz4.c", "lz4hc.c", "lz4frame.c", "xxhash.c"];

interface HarnessLine {
  mode: Lz4Mode;
  bytes: number;
  packed: number;
  compress_seconds: PassSeconds;
  decompress_seconds: PassSeconds;
}

export interface NativeLz4Options {
  /** Default clang-16 -O2 -DNDEBUG (DEFAULT_COMPILER). */
  compiler?: NativeCompiler;
  /** false: throw instead of returning the lz4 CLI baseline when the build fails. */
  cliFallback?: boolean;
}

/** Throws if no baseline can be had; callers report it and carry on without one. */
export function nativeLz4Baseline(
  items: readonly Uint8Array[],
  policy: TimingPolicy,
  log: (msg: string) => void,
  options: NativeLz4Options = {},
): NativeLz4Baseline {
  const compiler = options.compiler ?? DEFAULT_COMPILER;
  let harness: NativeHarness;
  try {
    harness = nativeHarness(
      {
        name: "lz4-bench",
        harness: HARNESS,
        sdist: "LZ4",
        extract: ["*/lz4libs/*"],
        args: (root) => [`-I${root}/lz4libs`, ...LZ4_SOURCES.map((f) => `${root}/lz4libs/${f}`)],
      },
      compiler,
      policy,
      log,
    );
  } catch (err) {
    if (options.cliFallback === false) throw err;
    log(`bench: native LZ4 build unavailable (${errorMessage(err)}); falling back to the lz4 CLI's -b mode`);
    return lz4CliBaseline(items, policy);
  }
  const name = `native-lz4 (${harness.sdistVersion} lz4libs, ${harness.compiler}; wasm ${WASM_OPT.lz4})`;
  const files = harness.scratch.concat("items", items);
  const speed = (mode: Lz4Mode): NativeSpeed => {
    const line = harness.run<HarnessLine>(files, [mode]);
    return harness.speed(line.bytes, line);
  };
  return { name, speed, dispose: harness.scratch.dispose };
}

/**
 * `lz4 -bN -iI FILES...` prints, on stderr and with \r-separated progress
 * updates, lines such as
 *   ` 1#2 files          :    140698 ->     39319 (3.578),2038.4 MB/s ,8214.0 MB/s`
 * (lz4 1.9.4; MB = 1e6 bytes, checked against the native harness). The last
 * line carrying both speeds is the result: the fastest loop each way.
 */
export function parseLz4CliBench(stderr: string): { compressMbPerS: number; decompressMbPerS: number } {
  const re = /(\d+)\s*->\s*(\d+)\s*\(\s*[\d.]+\)\s*,\s*([\d.]+)\s*MB\/s\s*,\s*([\d.]+)\s*MB\/s/g;
  let last: RegExpExecArray | undefined;
  for (let m = re.exec(stderr); m; m = re.exec(stderr)) last = m;
  if (!last) throw new Error(`could not find "MB/s ,MB/s" in lz4 -b output: ${JSON.stringify(stderr.slice(-200))}`);
  return { compressMbPerS: Number(last[3]), decompressMbPerS: Number(last[4]) };
}

/**
 * The `lz4 -b` baseline on the same items, one file per item so it cuts
 * blocks at item boundaries as our per-item calls do. It has no frame mode:
 * frame asks for the block speeds, and the name says so. Its timing is its
 * own: it loops for about `-i` seconds per direction (the policy's
 * minSeconds, rounded up; -i0, a single loop, for quick policies) and
 * reports the fastest, so `median` is null.
 */
export function lz4CliBaseline(items: readonly Uint8Array[], policy: TimingPolicy): NativeLz4Baseline {
  const version = spawnSync("lz4", ["--version"], { encoding: "utf8" });
  if (version.error || version.status !== 0) throw new Error("the lz4 command is not installed (apt-get install lz4)");
  const v = /v(\d+\.\d+\.\d+)/.exec(version.stdout + version.stderr)?.[1] ?? "?";
  const seconds = policy.minSeconds < 0.1 ? 0 : Math.ceil(policy.minSeconds);
  const scratch = scratchDir();
  const files = scratch.each("item", items);
  const speed = (mode: Lz4Mode): NativeSpeed => {
    const level = mode === "hc9" ? 9 : 1;
    const run = spawnSync("lz4", [`-b${level}`, `-i${seconds}`, ...files], { encoding: "utf8", maxBuffer: 16 << 20 });
    if (run.status !== 0) throw new Error(`lz4 -b${level} failed: ${run.stderr.trim().slice(-200)}`);
    const best = parseLz4CliBench(run.stderr);
    return { ...best, median: null, best, passes: null };
  };
  const how = seconds === 0 ? "one loop" : `fastest loop of ${seconds} s`;
  return { name: `lz4-cli ${v} -b (block API, frame rows get block speeds, ${how})`, speed, dispose: scratch.dispose };
}
