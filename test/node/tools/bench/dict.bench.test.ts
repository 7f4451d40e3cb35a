/**
 * `palimpsest bench dict --json --quick` end to end through the real CLI, on
 * a few files of each type (the shared corpus's, or the generated fixture
 * corpus without it): one well-formed row per type and size bucket present,
 * with every field the issue names, then the two target rows per type. The
 * output contract, not the speeds.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { DICT_BUCKET_ROW_KEYS } from "../../../../src/tools/bench/dict/run.ts";
import { CORPUS_DIR, HAVE_CORPUS, palimpsest, webSample } from "../../codec/support/corpus.ts";
import { writeFixtureCorpus } from "../dict/support/fixture-corpus.ts";
import { scratchDirForThisFile } from "../../support/scratch.ts";

const scratch = scratchDirForThisFile("bench-dict-test-");

/** The five-per-type corpus sample (1 KB to 256 KB, so every bucket), copied under one directory. */
function inputDir(): string {
  if (!HAVE_CORPUS) return writeFixtureCorpus(join(scratch, "web"));
  const dir = join(scratch, "web");
  for (const file of webSample()) {
    mkdirSync(dirname(join(dir, file.name)), { recursive: true });
    copyFileSync(join(CORPUS_DIR, "web", file.name), join(dir, file.name));
  }
  return dir;
}

describe("palimpsest bench dict --json --quick", () => {
  it("prints a row per type and bucket with every field, then the targets per type", { timeout: 180_000 }, async () => {
    const dir = inputDir();
    const { status, stdout, stderr } = await palimpsest(["bench", "dict", "--json", "--quick", dir]);
    expect(status, stderr).toBe(0);
    const rows = stdout
      .toString("utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const buckets = rows.filter((r) => r.row === "bucket");
    const targets = rows.filter((r) => r.row === "target");
    expect(buckets.length + targets.length).toBe(rows.length);

    for (const row of buckets) {
      expect(Object.keys(row)).toEqual([...DICT_BUCKET_ROW_KEYS]);
      expect(["html", "css", "js"]).toContain(row.type);
      expect(["le4k", "4k-16k", "16k-64k", "64k-256k"]).toContain(row.bucket);
      for (const key of DICT_BUCKET_ROW_KEYS.slice(3))
        expect(row[key], `${row.type} ${row.bucket} ${key}`).toBeGreaterThan(0);
      // Same run, same inputs: the reduced stream is one the stock q5 stream could have been.
      expect(row.reduced_q5_bytes as number).toBeLessThanOrEqual((row.stock_q5_bytes as number) * 1.01);
    }
    const files = (type: string) => buckets.filter((r) => r.type === type).reduce((n, r) => n + (r.files as number), 0);
    expect([files("html"), files("css"), files("js")]).toEqual(HAVE_CORPUS ? [5, 5, 5] : [4, 4, 4]);
    if (HAVE_CORPUS) expect(new Set(buckets.map((r) => r.bucket)).size).toBeGreaterThanOrEqual(3);

    for (const type of ["html", "css", "js"]) {
      const mine = targets.filter((r) => r.type === type);
      expect(mine.map((r) => r.want)).toEqual(["<= 1", "<= 1.03"]);
      for (const t of mine) {
        expect(t.target).toMatch(/files <= 64 KiB/);
        expect(t.met).toBe((t.got as number) <= Number(String(t.want).slice(3)));
      }
    }
  });

  it("refuses a directory with nothing to measure", { timeout: 60_000 }, async () => {
    const empty = join(scratch, "empty");
    mkdirSync(empty, { recursive: true });
    const r = await palimpsest(["bench", "dict", "--json", empty]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no \.html\/\.htm, \.css or \.js\/\.mjs files/);
  });
});
