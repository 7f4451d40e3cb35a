/**
 * The docs name only what exists, and the README's folder table names every
 * folder. (1) Every repository path README.md and docs/*.md name exists:
 * inline code spans that look like a path (a `/`, and a file extension or a
 * trailing `/`), rooted at the repository, and relative Markdown links,
 * rooted at the document. (2) Every top-level folder of the repository
 * (dot-folders left out, except .ci) and of src/, workers/, durable-objects/
 * and test/ has a row in the README's "Folders" table.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DOCS, ROOT } from "./support/docs.ts";

/** Markdown without its fenced code blocks: commands there are examples, not references. */
function prose(text: string): string {
  return text.replace(/^\s*(```|~~~)[\s\S]*?^\s*\1[^\n]*$/gm, "");
}

/** `a/{b,c}.ts` → `a/b.ts`, `a/c.ts`. */
function expandBraces(path: string): string[] {
  const m = /\{([^{}]*)\}/.exec(path);
  if (!m) return [path];
  return m[1]!
    .split(",")
    .flatMap((alt) => expandBraces(path.slice(0, m.index) + alt + path.slice(m.index + m[0].length)));
}

/** A code span that names a repository path: relative, no spaces or placeholders, with an extension or a trailing slash. */
function looksLikePath(span: string): boolean {
  if (!span.includes("/") || /^(\.\.\/|\/|~|[a-z]+:)/i.test(span)) return false;
  if (/[\s<>*?=:;@"'()…$]/.test(span)) return false;
  return span.endsWith("/") || /\.[a-z0-9]+$/i.test(span.replace(/\{[^}]*\}/g, "x"));
}

/** Every path a document names, as a repository path, with whether it must be a folder. */
function namedPaths(doc: string): Array<{ path: string; folder: boolean; as: string }> {
  const text = prose(readFileSync(join(ROOT, doc), "utf8"));
  const spans = [...text.matchAll(/(`+)([^`\n]+?)\1/g)].map((m) => m[2]!.trim()).filter(looksLikePath);
  const fromSpans = spans.flatMap((span) =>
    expandBraces(span).map((path) => ({ path: path.replace(/\/$/, ""), folder: span.endsWith("/"), as: span })),
  );
  const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!.split("#")[0]!)
    .filter((l) => l !== "" && !/^[a-z]+:/i.test(l));
  const fromLinks = links.map((link) => ({
    path: relative(ROOT, resolve(ROOT, dirname(doc), link)),
    folder: link.endsWith("/"),
    as: link,
  }));
  return [...fromSpans, ...fromLinks];
}

function folders(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== "node_modules" && (!e.name.startsWith(".") || e.name === ".ci"))
    .map((e) => (dir === "." ? `${e.name}/` : `${dir}/${e.name}/`));
}

/** The first cell of every row of the README's "Folders" section's tables. */
function folderTable(): string[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = /^## Folders\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? "";
  return section
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .map((line) => /^\|\s*`([^`]+)`/.exec(line)?.[1])
    .filter((cell): cell is string => cell !== undefined);
}

describe("docs name only what exists", () => {
  it("finds the paths it checks", () => {
    expect(looksLikePath("src/tiers/chain.ts")).toBe(true);
    expect(looksLikePath("workers/edge/")).toBe(true);
    expect(looksLikePath("src/codec/dict/{html,css,js}.psd")).toBe(true);
    expect(looksLikePath("../shared/corpus/web")).toBe(false);
    expect(looksLikePath("/page/{title}/history")).toBe(false);
    expect(looksLikePath("text/plain; charset=utf-8")).toBe(false);
    expect(expandBraces("a/{b,c}.ts")).toEqual(["a/b.ts", "a/c.ts"]);
    expect(namedPaths("README.md").length).toBeGreaterThan(30);
  });

  it.each(DOCS)("every repository path %s names exists", (doc) => {
    const missing = namedPaths(doc)
      .filter(
        ({ path, folder }) => !existsSync(join(ROOT, path)) || (folder && !statSync(join(ROOT, path)).isDirectory()),
      )
      .map(({ as }) => as);
    expect(missing, `${doc} names paths that do not exist`).toEqual([]);
  });

  it("the README's folder table names every top-level folder of the repository, src/, workers/, durable-objects/ and test/", () => {
    const table = new Set(folderTable());
    const expected = [".", "src", "workers", "durable-objects", "test"].flatMap(folders);
    expect(expected.length).toBeGreaterThan(10);
    expect(
      expected.filter((f) => !table.has(f)),
      "folders missing from README's Folders table",
    ).toEqual([]);
    // And the table names no folder that is not there.
    expect([...table].filter((f) => f.endsWith("/") && !existsSync(join(ROOT, f)))).toEqual([]);
  });
});
