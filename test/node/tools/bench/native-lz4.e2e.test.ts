/**
 * The two native LZ4 baselines. The harness built with clang-16 -O2 from the
 * cached sdist reports median and best for every mode and refuses to report
 * when an item does not round-trip. The lz4 CLI's stderr format is parsed,
 * not an API, so the parser is pinned to real lz4 1.9.4 output and, where
 * lz4 is installed, run.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cacheRoot, DEFAULT_COMPILER } from "../../../../src/tools/bench/native-build.ts";
import { lz4CliBaseline, nativeLz4Baseline, parseLz4CliBench } from "../../../../src/tools/bench/native-lz4.ts";
import { QUICK_POLICY } from "../../../../src/tools/bench/harness/index.ts";
import {
  commandMissing,
  describeNeeding,
  fileMissing,
  firstMissing,
  itNeeding,
  present,
} from "../../support/requirements.ts";

const SDIST = join(cacheRoot(), "sdist", "lz4-4.4.5.tar.gz");
const NO_SDIST = fileMissing(SDIST, "the pinned sdist (npm run build:wasm -- --fetch caches it)");
const MISSING = firstMissing(commandMissing(DEFAULT_COMPILER.cc), NO_SDIST);
const text = new TextEncoder().encode("the quick brown fox jumps over the lazy dog. ".repeat(2000));
const items = [text, text.subarray(0, 30_000)];
const noLog = () => {};
const NO_LZ4 = commandMissing("lz4");

describeNeeding(MISSING, "native LZ4 harness", () => {
  it("builds with clang-16 -O2 and reports the median and best pass of every mode", { timeout: 120_000 }, () => {
    const base = nativeLz4Baseline(items, QUICK_POLICY, noLog, { cliFallback: false });
    try {
      expect(base.name).toMatch(/^native-lz4 \(lz4-4\.4\.5 lz4libs, clang-16 \d+\.\d+\.\d+ -O2 -DNDEBUG; wasm -O3\)$/);
      for (const mode of ["fast", "hc9", "frame"] as const) {
        const speed = base.speed(mode);
        expect(speed.median).toEqual({
          compressMbPerS: speed.compressMbPerS,
          decompressMbPerS: speed.decompressMbPerS,
        });
        expect(speed.best.compressMbPerS).toBeGreaterThanOrEqual(speed.compressMbPerS);
        expect(speed.best.decompressMbPerS).toBeGreaterThanOrEqual(speed.decompressMbPerS);
        expect(speed.compressMbPerS).toBeGreaterThan(0);
        expect(speed.passes!.decompress).toBeGreaterThanOrEqual(QUICK_POLICY.minPasses);
      }
    } finally {
      base.dispose();
    }
  });

  it("exits non-zero, naming the item, when a decoded item differs from its input", { timeout: 120_000 }, () => {
    const compiler = { cc: DEFAULT_COMPILER.cc, flags: ["-O0", "-DBENCH_TEST_CORRUPT_OUTPUT"] };
    const base = nativeLz4Baseline(items, QUICK_POLICY, noLog, { compiler, cliFallback: false });
    try {
      expect(() => base.speed("frame")).toThrow(/exited 2: lz4-bench: frame: item 0 did not round-trip/);
    } finally {
      base.dispose();
    }
  });

  it("names the missing compiler, or falls back to the CLI saying why", () => {
    const compiler = { cc: "clang-no-such-version", flags: ["-O2"] };
    expect(() => nativeLz4Baseline(items, QUICK_POLICY, noLog, { compiler, cliFallback: false })).toThrow(
      /C compiler clang-no-such-version not found/,
    );
    if (!present(NO_LZ4, "the fall-back to the lz4 CLI")) return;
    const said: string[] = [];
    const base = nativeLz4Baseline(items, QUICK_POLICY, (m) => said.push(m), { compiler });
    base.dispose();
    expect(base.name).toMatch(/^lz4-cli /);
    expect(said.join("\n")).toMatch(/C compiler clang-no-such-version not found.*falling back to the lz4 CLI/);
  });
});

// Verbatim `lz4 -b1 -i1 a b` stderr from lz4 1.9.4: progress updates separated by \r.
const LZ4_194_STDERR =
  "\r                                                                                \r" +
  " |- 2 files          :    140698 -> \r /- 2 files          :    140698 ->     39319 (3.578),2038.4 MB/s\r" +
  " =- 2 files          :    140698 ->     39319 (3.578),2038.4 MB/s ,8214.0 MB/s\r" +
  " \\- 2 files          :    140698 ->     39319 (3.578),2038.4 MB/s\r" +
  " |- 2 files          :    140698 ->     39319 (3.578),2101.7 MB/s ,8283.3 MB/s\r 1#2 files          :    140698 ->     39319 (3.578),2101.7 MB/s ,8283.3 MB/s \n";

describe("lz4 CLI baseline", () => {
  it("takes the last line that carries both speeds", () => {
    expect(parseLz4CliBench(LZ4_194_STDERR)).toEqual({ compressMbPerS: 2101.7, decompressMbPerS: 8283.3 });
  });

  it("refuses output it does not understand", () => {
    expect(() => parseLz4CliBench("Error 12 : not enough memory\n")).toThrow(/MB\/s/);
  });

  itNeeding(NO_LZ4, "measures all three modes with the installed lz4", { timeout: 60_000 }, () => {
    const base = lz4CliBaseline(items, QUICK_POLICY);
    try {
      expect(base.name).toMatch(/^lz4-cli \d+\.\d+\.\d+ -b/);
      for (const mode of ["fast", "hc9"] as const) {
        const speed = base.speed(mode);
        expect(speed.compressMbPerS).toBeGreaterThan(0);
        expect(speed.decompressMbPerS).toBeGreaterThan(0);
        // lz4 -b reports its fastest loop only.
        expect(speed.median).toBeNull();
        expect(speed.best).toEqual({ compressMbPerS: speed.compressMbPerS, decompressMbPerS: speed.decompressMbPerS });
      }
    } finally {
      base.dispose();
    }
  });
});
