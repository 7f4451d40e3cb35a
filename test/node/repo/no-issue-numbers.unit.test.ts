/**
 * Code and tests give their reasons in words, never as a pointer to a tracker
 * entry: the word "issue" and a number tell a reader nothing without the
 * tracker, and go stale when the entry is closed or renumbered. Every source,
 * test and CI script is scanned for one (singular or plural, with or without
 * a "#"). The examples below are assembled at run time so that this file
 * passes its own scan.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
/** Where code, tests and CI scripts live. */
const FOLDERS = ["src", "workers", "durable-objects", "test", ".ci"];
/** Source and script files; everything under .ci is a script, whatever its name. */
const SCANNED = /\.(?:ts|tsx|js|mjs|cjs|sh)$/;
const TRACKER_NUMBER = /\bissues? #?\d+/i;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : filesUnder(path);
    return [relative(ROOT, path).split(sep).join("/")];
  });
}

const files = FOLDERS.flatMap((folder) => filesUnder(join(ROOT, folder))).filter(
  (f) => f.startsWith(".ci/") || SCANNED.test(f),
);

describe("no tracker numbers in code and tests", () => {
  it("scans the code, the tests and the CI scripts", () => {
    expect(files).toContain(".ci/run");
    expect(files).toContain("workers/index.ts");
    expect(files.filter((f) => f.startsWith("test/")).length).toBeGreaterThan(100);
  });

  it("the pattern finds the ways a tracker number is written", () => {
    for (const [word, rest] of [
      ["(issue", "28 item 3)"],
      ["Issue", "25's acceptance"],
      ["issues", "2 and 8"],
      ["see issue", "#7"],
    ])
      expect(`${word} ${rest}`).toMatch(TRACKER_NUMBER);
    for (const text of ["an issue with 3 pages", "reissue 4", "tissue 5"]) expect(text).not.toMatch(TRACKER_NUMBER);
  });

  it("no file names one: each says the reason itself", () => {
    const found = files.flatMap((f) =>
      readFileSync(join(ROOT, f), "utf8")
        .split("\n")
        .flatMap((line, i) => (TRACKER_NUMBER.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
