/**
 * The lz4 CLI fallback baseline: its stderr format is parsed, not an API, so
 * pin the parser to real lz4 1.9.4 output and, where lz4 is installed, run it.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { lz4CliBaseline, parseLz4CliBench } from "../../../src/bench/native-lz4.ts";
import { QUICK_POLICY } from "../../../src/bench/harness/index.ts";

// Verbatim `lz4 -b1 -i1 a b` stderr from lz4 1.9.4: progress updates separated by \r.
const LZ4_194_STDERR =
  "\r                                                                                \r" +
  " |- 2 files          :    140698 -> \r /- 2 files          :    140698 ->     39319 (3.578),2038.4 MB/s\r" +
  " =- 2 files          :    140698 ->     39319 (3.578),2038.4 MB/s ,8214.0 MB/s\r" +
  " \\- 2 files          :    140698 ->     39319 (3.578),2038.4 MB/s\r" +
  " |- 2 files          :    140698 ->     39319 (3.578),2101.7 MB/s ,8283.3 MB/s\r 1#2 files          :    140698 ->     39319 (3.578),2101.7 MB/s ,8283.3 MB/s \n";

const hasLz4 = spawnSync("lz4", ["--version"], { stdio: "ignore" }).status === 0;

describe("lz4 CLI baseline", () => {
  it("takes the last line that carries both speeds", () => {
    expect(parseLz4CliBench(LZ4_194_STDERR)).toEqual({ compressMbPerS: 2101.7, decompressMbPerS: 8283.3 });
  });

  it("refuses output it does not understand", () => {
    expect(() => parseLz4CliBench("Error 12 : not enough memory\n")).toThrow(/MB\/s/);
  });

  it.runIf(hasLz4)("measures all three modes with the installed lz4", { timeout: 60_000 }, () => {
    const text = new TextEncoder().encode("the quick brown fox jumps over the lazy dog. ".repeat(2000));
    const base = lz4CliBaseline([text, text.subarray(0, 30_000)], QUICK_POLICY);
    try {
      expect(base.name).toMatch(/^lz4-cli \d+\.\d+\.\d+ -b/);
      for (const mode of ["fast", "hc9"] as const) {
        const speed = base.speed(mode);
        expect(speed.compressMbPerS).toBeGreaterThan(0);
        expect(speed.decompressMbPerS).toBeGreaterThan(0);
      }
    } finally {
      base.dispose();
    }
  });
});
