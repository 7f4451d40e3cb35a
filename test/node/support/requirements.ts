/**
 * The one rule for a Node test whose tool, browser or corpus is missing:
 * under CI (`CI=true`) it fails, saying what is missing and how to get it;
 * elsewhere it is skipped, and the reason is printed, never silent.
 * `npm run test:all` runs `.ci/pretest` first (`npm run pretest:all`), which
 * installs the tools and fetches the sources the tests build from, so on a
 * machine it has set up nothing here skips.
 *
 * @example
 * const NO_BZIP2 = commandMissing("bzip2");
 * describeNeeding(NO_BZIP2, "bzip2 exports", () => { it("…", () => {}); });
 * itNeeding(NO_BZIP2, "a truncated .bz2 is an error", {}, async () => {});
 * if (present(NO_BZIP2, "the bzip2 round trip")) { … }   // one part of a test
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, it, type TestFunction, type TestOptions } from "vitest";

export const CI = process.env.CI === "true";

/** What a reader of a failure or a skip is told to do about it. */
const REMEDY =
  "npm run pretest:all installs the tools and fetches the sources; the shared corpus lives at ../shared/corpus";

/** The first of the reasons that is one (null: nothing is missing). */
export function firstMissing(...reasons: Array<string | null | undefined | false>): string | null {
  return reasons.find((r): r is string => typeof r === "string") ?? null;
}

/** Null if `command --version` (or the given probe arguments) runs; else why not. */
export function commandMissing(command: string, probe: readonly string[] = ["--version"]): string | null {
  return spawnSync(command, probe, { stdio: "ignore" }).status === 0 ? null : `\`${command}\` is not installed`;
}

/** Null if the file is there; else why it matters. */
export function fileMissing(path: string | URL, what: string): string | null {
  return existsSync(path) ? null : `${what} not found at ${path instanceof URL ? path.pathname : path}`;
}

function failure(reason: string): Error {
  return new Error(`${reason}. CI=true, so a missing requirement fails instead of skipping (${REMEDY})`);
}

function noteSkip(title: string, reason: string): void {
  console.warn(`skipped: ${title}: ${reason} (${REMEDY}; under CI=true this fails)`);
}

/**
 * For one part of a test that runs either way: true if nothing is missing;
 * under CI a missing requirement throws; otherwise the skipped part is printed and this is false.
 */
export function present(missing: string | null, part: string): boolean {
  if (missing === null) return true;
  if (CI) throw failure(missing);
  noteSkip(part, missing);
  return false;
}

/** `describe`, unless `missing` names something absent: then one failing test under CI, a skip with its reason otherwise. */
export function describeNeeding(missing: string | null, title: string, body: () => void): void {
  if (missing === null) return void describe(title, body);
  if (CI) {
    return void describe(title, () => {
      it("has what it needs", () => {
        throw failure(missing);
      });
    });
  }
  noteSkip(title, missing);
  describe.skip(`${title} (skipped: ${missing})`, body);
}

/** `it`, unless `missing` names something absent: then a failure under CI, a skip with its reason otherwise. */
export function itNeeding(missing: string | null, title: string, options: TestOptions, fn: TestFunction): void {
  if (missing === null) return void it(title, options, fn);
  if (CI) {
    return void it(title, () => {
      throw failure(missing);
    });
  }
  noteSkip(title, missing);
  it.skip(`${title} (skipped: ${missing})`, options, fn);
}
