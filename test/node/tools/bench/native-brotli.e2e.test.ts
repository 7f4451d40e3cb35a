/**
 * The native brotli baseline, built for real from the cached sdist with
 * clang-16: it must run the wasm rows' code with the wasm rows' settings
 * (so its output is byte-for-byte the size of ours), refuse to report a
 * speed when a decoded item differs, and say which of compiler or sdist is
 * missing when it cannot be built.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import "../../../../src/codec/install-node.ts";
import { brotliCompress } from "../../../../src/codec/index.ts";
import { QUICK_POLICY } from "../../../../src/tools/bench/harness/index.ts";
import { cacheRoot, DEFAULT_COMPILER, fnv1a64, type NativeSpeed } from "../../../../src/tools/bench/native-build.ts";
import { nativeBrotliBaseline, type DictionaryPair } from "../../../../src/tools/bench/native-brotli.ts";
import { generateHistory } from "../../support/mediawiki-export.ts";
import { commandMissing, describeNeeding, fileMissing, firstMissing, itNeeding } from "../../support/requirements.ts";

const SDIST = join(cacheRoot(), "sdist", "brotli-1.2.1.tar.gz");
const NO_SDIST = fileMissing(SDIST, "the pinned sdist (npm run build:wasm -- --fetch caches it)");
const MISSING = firstMissing(commandMissing(DEFAULT_COMPILER.cc), NO_SDIST);
// The first build of brotli takes about 30 s on two busy cores; later runs reuse it.
const BUILD_TIMEOUT = 300_000;

const utf8 = new TextEncoder();
const revisions = generateHistory(80, { seed: 14 }).map((r) => utf8.encode(r.text));
/**
 * Items of a few sizes. No empty one: BrotliEncoderCompress writes the fixed
 * byte 6 for it where the streaming encoder writes its window header, so the
 * digests would differ by design.
 */
const items = [revisions[79]!, revisions[40]!, revisions[5]!];
/** Each revision against the one before it, as a revision delta is. */
const pairs: DictionaryPair[] = [60, 70, 79].map((i) => ({ input: revisions[i]!, dictionary: revisions[i - 1]! }));
const total = (xs: readonly Uint8Array[]) => xs.reduce((n, x) => n + x.byteLength, 0);

/** What the native side must match: the wasm's own outputs, their total size and digest. */
function wasmOutput(packed: readonly Uint8Array[]) {
  return { packed: total(packed), packedFnv1a64: fnv1a64(packed) };
}

function expectSane(speed: NativeSpeed): void {
  for (const s of [speed, speed.median!, speed.best]) {
    expect(s.compressMbPerS).toBeGreaterThan(0);
    expect(s.decompressMbPerS).toBeGreaterThan(0);
  }
  // The headline is QUICK_POLICY's statistic, the median; the best pass is no slower.
  expect(speed.compressMbPerS).toBe(speed.median!.compressMbPerS);
  expect(speed.best.compressMbPerS).toBeGreaterThanOrEqual(speed.median!.compressMbPerS);
  expect(speed.best.decompressMbPerS).toBeGreaterThanOrEqual(speed.median!.decompressMbPerS);
  expect(speed.passes!.compress).toBeGreaterThanOrEqual(QUICK_POLICY.minPasses);
  expect(speed.passes!.compress).toBeLessThanOrEqual(QUICK_POLICY.maxPasses);
}

describeNeeding(MISSING, "native brotli harness", () => {
  it(
    "builds with clang-16 -O2 and compresses exactly as the wasm rows do, with and without a dictionary",
    { timeout: BUILD_TIMEOUT },
    () => {
      const base = nativeBrotliBaseline(items, pairs, QUICK_POLICY);
      try {
        expect(base.name).toMatch(
          /^native-brotli \(brotli-1\.2\.1 .*clang-16 \d+\.\d+\.\d+ -O2 -DNDEBUG; wasm -O3, decoder -O2\)$/,
        );
        for (const [quality, lgwin] of [
          [5, 22],
          [9, 24],
        ] as const) {
          const plain = base.plain({ quality, lgwin });
          expect(plain.bytes).toBe(total(items));
          expectSane(plain.speed);
          // Same code, quality, window, size hint and mode: the same bytes.
          expect(plain).toMatchObject(wasmOutput(items.map((b) => brotliCompress(b, { quality, lgwin }))));

          const { dict, plain: beside } = base.dictionary({ quality, lgwin });
          expect(dict.bytes).toBe(total(pairs.map((p) => p.input)));
          expect(beside.bytes).toBe(dict.bytes);
          expectSane(dict.speed);
          expectSane(beside.speed);
          expect(dict).toMatchObject(
            wasmOutput(pairs.map((p) => brotliCompress(p.input, { quality, lgwin, dictionary: p.dictionary }))),
          );
          expect(beside).toMatchObject(wasmOutput(pairs.map((p) => brotliCompress(p.input, { quality, lgwin }))));
          expect(dict.packed).toBeLessThan(beside.packed / 4);
        }
      } finally {
        base.dispose();
      }
    },
  );

  it("prepares dictionaries inside the timed call when asked, with the same output", { timeout: BUILD_TIMEOUT }, () => {
    const base = nativeBrotliBaseline(items, pairs, QUICK_POLICY, { prepare: "per-call" });
    try {
      const { dict } = base.dictionary({ quality: 5, lgwin: 22 });
      expect(dict).toMatchObject(
        wasmOutput(pairs.map((p) => brotliCompress(p.input, { quality: 5, lgwin: 22, dictionary: p.dictionary }))),
      );
    } finally {
      base.dispose();
    }
  });

  it("exits non-zero, naming the item, when a decoded item differs from its input", { timeout: BUILD_TIMEOUT }, () => {
    // The same harness with its test hook, which flips a byte of the first output before the check; -O0 builds fast.
    const base = nativeBrotliBaseline(items, pairs, QUICK_POLICY, {
      compiler: { cc: DEFAULT_COMPILER.cc, flags: ["-O0", "-DBENCH_TEST_CORRUPT_OUTPUT"] },
    });
    try {
      expect(() => base.plain({ quality: 5, lgwin: 22 })).toThrow(
        /exited 2: brotli-bench: plain: item 0 did not round-trip/,
      );
      expect(() => base.dictionary({ quality: 5, lgwin: 22 })).toThrow(
        /exited 2: brotli-bench: plain: item 0 did not round-trip/,
      );
    } finally {
      base.dispose();
    }
  });
});

describe("native brotli harness prerequisites", () => {
  const empty = mkdtempSync(join(tmpdir(), "native-brotli-test-"));
  afterAll(() => {
    vi.unstubAllEnvs();
    rmSync(empty, { recursive: true, force: true });
  });

  it("hashes outputs as native-bench.h does (FNV-1a 64 test vectors)", () => {
    expect(fnv1a64([])).toBe("cbf29ce484222325");
    expect(fnv1a64([utf8.encode("a")])).toBe("af63dc4c8601ec8c");
    expect(fnv1a64([utf8.encode("foo"), utf8.encode("bar")])).toBe("85944171f73967e8");
  });

  it("names the sdist when it is not cached", () => {
    vi.stubEnv("PALIMPSEST_CACHE", empty);
    try {
      expect(() => nativeBrotliBaseline(items, pairs, QUICK_POLICY)).toThrow(
        `the pinned brotli-1.2.1.tar.gz is not cached at ${join(empty, "sdist", "brotli-1.2.1.tar.gz")}; run npm run build:wasm once`,
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  itNeeding(NO_SDIST, "names the compiler when it cannot be run", {}, () => {
    expect(() =>
      nativeBrotliBaseline(items, pairs, QUICK_POLICY, { compiler: { cc: "clang-no-such-version", flags: ["-O2"] } }),
    ).toThrow(/C compiler clang-no-such-version not found/);
  });
});
