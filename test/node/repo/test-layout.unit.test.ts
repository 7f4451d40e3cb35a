/**
 * The tests say what they are: every test file is named `<behaviour>.<kind>.test.ts`
 * (the kinds `npm run test:<kind>` selects, in docs/development.md), and sits
 * under its runtime (test/workers/ inside workerd, test/node/ in Node) in the
 * folder of the code it checks: a product folder of src/, tools/<tool> for
 * src/tools/<tool>, middleware for workers/middleware/, or repo for the
 * repository itself (its dependencies, docs, a fresh machine). Helpers live
 * in a support/ folder. A file that breaks the rule would be run by `npm test`
 * but by no `test:<kind>` script, or be found where nobody looks for it.
 */
import { readdirSync, statSync } from "node:fs";
import { join, matchesGlob, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
const KINDS = ["unit", "integration", "e2e", "scale", "bench"] as const;
const NAME = new RegExp(`^[a-z0-9]+(?:-[a-z0-9]+)*\\.(${KINDS.join("|")})\\.test\\.tsx?$`);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [relative(ROOT, path).split(sep).join("/")];
  });
}

function foldersOf(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).filter((name) => statSync(join(ROOT, dir, name)).isDirectory());
}

/** Where a test may sit, below test/workers/ or test/node/. */
const AREAS = new Set([
  ...foldersOf("src").filter((f) => f !== "tools"),
  ...foldersOf("src/tools").map((f) => `tools/${f}`),
  "middleware",
  "repo",
]);

const testFiles = [...filesUnder(join(ROOT, "test/workers")), ...filesUnder(join(ROOT, "test/node"))];

describe("test files say what they are", () => {
  it("finds the tests", () => {
    expect(testFiles.filter((f) => f.endsWith(".test.ts")).length).toBeGreaterThan(100);
  });

  it("names every test file <behaviour>.<kind>.test.ts, kind one of the npm test:<kind> scripts", () => {
    const misnamed = testFiles.filter((f) => /\.test\.tsx?$/.test(f) && !NAME.test(f.slice(f.lastIndexOf("/") + 1)));
    expect(misnamed).toEqual([]);
  });

  it("puts every test in the folder of the code it checks, and every helper in a support/ folder", () => {
    const misplaced = testFiles.filter((f) => {
      const inRuntime = f.replace(/^test\/(workers|node)\//, "");
      if (/(^|\/)support\//.test(inRuntime)) return false;
      if (!/\.test\.tsx?$/.test(f)) return true;
      const folder = inRuntime.slice(0, inRuntime.lastIndexOf("/"));
      return !AREAS.has(folder);
    });
    expect(misplaced).toEqual([]);
  });

  it("gives every kind an npm script, the inner loop the unit and integration kinds, and test:all everything", async () => {
    const { scripts } = (await import(join(ROOT, "package.json"), { with: { type: "json" } })).default as {
      scripts: Record<string, string>;
    };
    for (const kind of KINDS) expect(scripts[`test:${kind}`]).toBe(`vitest run --project "${kind}:*"`);
    expect(scripts["test"]).toBe(`vitest run --project "unit:*" --project "integration:*"`);
    expect(scripts["test:all"]).toBe("vitest run");
  });

  it("runs every test file in exactly one project, and that project is of the file's kind and runtime", async () => {
    const config = (await import(join(ROOT, "vitest.config.ts"))).default as {
      test: { projects: Array<{ test: { name: string; include: string[]; exclude?: string[] } }> };
    };
    const projects = config.test.projects.map((p) => p.test);
    const names = projects.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(new RegExp(`^(${KINDS.join("|")}):(workers|node)(-[a-z-]+)?$`));
    const runners = (file: string) =>
      projects
        .filter(
          (p) => p.include.some((g) => matchesGlob(file, g)) && !(p.exclude ?? []).some((g) => matchesGlob(file, g)),
        )
        .map((p) => p.name);
    const wrong = testFiles
      .filter((f) => /\.test\.tsx?$/.test(f))
      .map((file) => ({ file, runners: runners(file) }))
      .filter(({ file, runners }) => {
        const [, runtime, kind] = /^test\/(workers|node)\/.*\.([a-z0-9]+)\.test\.tsx?$/.exec(file) ?? [];
        return runners.length !== 1 || !runners[0]!.startsWith(`${kind}:${runtime}`);
      });
    expect(wrong).toEqual([]);
  });
});
