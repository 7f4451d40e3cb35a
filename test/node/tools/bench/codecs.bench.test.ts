/**
 * `palimpsest bench codecs --json --quick` end to end, through the real CLI
 * binary, on one small corpus file (or a generated one when the shared
 * corpus is absent): the output contract, not the speeds.
 */
import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { CODEC_ROW_KEYS } from "../../../../src/tools/bench/codecs.ts";
import { LZ4_VARIANTS } from "../../../../src/codec/index.ts";
import { CLI, benchRows } from "./support/run-bench.ts";
import { scratchDirForThisFile } from "../../support/scratch.ts";

const run = promisify(execFile);
const CORPUS_FILE = fileURLToPath(
  new URL("../../../../../shared/corpus/web/css/normalize.css-8.0.1/normalize.css", import.meta.url),
);

const scratch = scratchDirForThisFile("bench-codecs-test-");

function inputFile(): string {
  if (existsSync(CORPUS_FILE)) return CORPUS_FILE;
  // Without the shared corpus, a small text with some repetition stands in.
  const text = Array.from(
    { length: 400 },
    (_, i) => `.rule-${i % 37} { margin: ${i % 7}px; color: #${(i * 2654435761) % 0xffffff}; }\n`,
  ).join("");
  const file = join(scratch, "sample.css");
  writeFileSync(file, text);
  return file;
}

const NATIVE_BROTLI =
  /^native-brotli \(brotli-[\d.]+ as build\.sh patches it, clang-16 [\d.]+ -O2 -DNDEBUG; wasm -O3, decoder -O2\)/;
const NATIVE_LZ4 = /^native-lz4 \(lz4-[\d.]+ lz4libs, clang-16 [\d.]+ -O2 -DNDEBUG; wasm -O3\)$/;

/** Every setting, once per baseline it is compared with. */
const REQUIRED = [
  ...["compress", "decompress"].flatMap((op) => [
    ...[5, 9].flatMap((quality) => [
      { codec: "br", op, quality, dict: false, baseline: /^node-zlib-brotli$/ },
      { codec: "br", op, quality, dict: false, baseline: NATIVE_BROTLI },
      {
        codec: "br",
        op,
        quality,
        dict: true,
        baseline: new RegExp(`${NATIVE_BROTLI.source}, dictionary prepared once$`),
      },
      { codec: "br", op, quality, dict: true, baseline: /^wasm brotli plain call, same inputs$/ },
    ]),
    ...[0, 9].flatMap((quality) => [
      { codec: "lz4", op, quality, dict: false, baseline: NATIVE_LZ4 },
      { codec: "lz4", op, quality, dict: false, baseline: /^lz4-cli [\d.]+ -b / },
    ]),
    { codec: "lz4-frame", op, quality: 0, dict: false, baseline: NATIVE_LZ4 },
    { codec: "gzip", op, quality: 6, dict: false, baseline: /^node-zlib-gzip$/ },
  ]),
];

describe("palimpsest bench codecs --json --quick", () => {
  it("prints one well-formed row per codec/op/setting, then the module sizes", { timeout: 180_000 }, async () => {
    const file = inputFile();
    const { stdout } = await run(process.execPath, [CLI, "bench", "codecs", "--json", "--quick", file], {
      maxBuffer: 1 << 20,
    });
    const lines = stdout.trim().split("\n");
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);

    const sizes = parsed.at(-1)!;
    expect(Object.keys(sizes)).toEqual(["module_sizes"]);
    const ms = sizes.module_sizes as Record<string, { bytes: number; gzip: number } | number | null>;
    for (const name of ["brotli.wasm", "lz4.wasm"]) {
      const e = ms[name] as { bytes: number; gzip: number };
      expect(e.gzip).toBeGreaterThan(0);
      expect(e.gzip).toBeLessThan(e.bytes);
    }

    const variants = parsed
      .filter((line) => "lz4_variants" in line)
      .map(
        (line) =>
          line.lz4_variants as {
            level: number;
            rows: Array<{ variant: string; mb_per_s: number }>;
            bandit_choice: string;
            best_fixed: string;
          },
      );
    expect(variants.map((v) => v.level)).toEqual([0, 9]);
    for (const v of variants) {
      expect(v.rows.map((r) => r.variant)).toEqual(["reference", ...LZ4_VARIANTS, "bandit"]);
      for (const r of v.rows) expect(r.mb_per_s).toBeGreaterThan(0);
      expect(LZ4_VARIANTS).toContain(v.best_fixed);
      expect(LZ4_VARIANTS).toContain(v.bandit_choice);
    }
    const rows = parsed.slice(0, -1).filter((line) => !("lz4_variants" in line));
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual([...CODEC_ROW_KEYS].sort());
      for (const key of ["bytes_in", "bytes_out", "mb_per_s", "baseline_mb_per_s", "ratio_vs_baseline"] as const) {
        expect(row[key], `${key} in ${JSON.stringify(row)}`).toBeTypeOf("number");
        expect(row[key] as number).toBeGreaterThan(0);
      }
      expect(row.baseline).toBeTypeOf("string");
      const ratio = (row.mb_per_s as number) / (row.baseline_mb_per_s as number);
      // The ratio is of the printed speeds, rounded to 4 decimals.
      expect(Math.abs((row.ratio_vs_baseline as number) - ratio)).toBeLessThanOrEqual(5e-5 + 1e-12);
      expect(row.lgwin === null).toBe(row.codec !== "br");
      if (row.op === "decompress") expect(row.bytes_out).toBeGreaterThan(row.bytes_in as number);
    }

    for (const want of REQUIRED) {
      const found = rows.filter(
        (r) =>
          r.codec === want.codec &&
          r.op === want.op &&
          r.quality === want.quality &&
          r.dict === want.dict &&
          want.baseline.test(String(r.baseline)),
      );
      expect(found, `${JSON.stringify(want)} ${want.baseline}`).toHaveLength(1);
    }
    expect(rows).toHaveLength(REQUIRED.length);
  });

  it(
    "with --worker-gzip, times the Worker's own gzip in workerd against Node's zlib on the same input",
    { timeout: 180_000 },
    async () => {
      const rows = (await benchRows(["codecs", "--json", "--quick", "--worker-gzip", inputFile()])).filter(
        (r) => r.codec === "gzip-worker",
      );
      expect(rows.map((r) => r.op)).toEqual(["compress", "decompress"]);
      for (const row of rows) {
        expect(row).toMatchObject({ quality: 6, dict: false, baseline: "node-zlib-gzip" });
        // workerd's CPU for the rounds, less a request of none: a positive speed, and a ratio to Node's of the same input.
        for (const key of ["mb_per_s", "baseline_mb_per_s", "ratio_vs_baseline"])
          expect(row[key] as number, key).toBeGreaterThan(0);
      }
      // The compress row's input is the file, the decompress row's its gzip, and each reads back as the other.
      expect(rows[0]!.bytes_in).toBe(rows[1]!.bytes_out);
      expect(rows[0]!.bytes_out).toBe(rows[1]!.bytes_in);
    },
  );

  it("exits 2 with a clear message when there are no files and no corpus", { timeout: 60_000 }, async () => {
    const missing = join(scratch, "no-corpus-here");
    const err = await run(process.execPath, [CLI, "bench", "codecs", "--json", "--quick", "--corpus", missing]).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(2);
    expect(err?.stderr).toMatch(/corpus is missing/);
  });
});
