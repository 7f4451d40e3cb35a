/**
 * Product code (src/ outside src/tools, workers/, durable-objects/) keeps its lines within prettier's print
 * width, 120 characters, except where a string literal makes them longer: prettier wraps code but never a
 * string or a comment, so a long comment line (comments are not strings) or a long regular expression has
 * to be wrapped by hand. A line counts as too long when more than 120 of its characters lie outside string
 * literals (quoted strings, template text, JSX attribute values).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
const MAX = JSON.parse(readFileSync(join(ROOT, ".prettierrc.json"), "utf8")).printWidth as number;
const PRODUCT = ["src", "workers", "durable-objects"];
const TOOLS = "src/tools";

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const rel = relative(ROOT, path).split(sep).join("/");
    if (statSync(path).isDirectory()) return rel === TOOLS ? [] : sources(path);
    return /\.tsx?$/.test(name) ? [rel] : [];
  });
}

/** Lines (1-based, with their count of characters outside strings) over `MAX` outside string literals. */
function longLines(name: string, text: string): { line: number; outside: number }[] {
  const kind = name.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, kind);
  const inString = new Uint8Array(text.length);
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    )
      inString.fill(1, node.getStart(file), node.getEnd());
    ts.forEachChild(node, visit);
  };
  visit(file);
  const found: { line: number; outside: number }[] = [];
  let start = 0;
  text.split("\n").forEach((line, i) => {
    if (line.length > MAX) {
      let outside = 0;
      for (let k = 0; k < line.length; k++) outside += inString[start + k] === 1 ? 0 : 1;
      if (outside > MAX) found.push({ line: i + 1, outside });
    }
    start += line.length + 1;
  });
  return found;
}

const files = PRODUCT.flatMap((dir) => sources(join(ROOT, dir)));

describe("product lines stay within the print width outside strings", () => {
  it("reads the print width from prettier's config and scans the product, not the tools", () => {
    expect(MAX).toBe(120);
    expect(files).toContain("workers/index.ts");
    expect(files).toContain("durable-objects/page-store.ts");
    expect(files.filter((f) => f.startsWith("src/")).length).toBeGreaterThan(100);
    expect(files.some((f) => f.startsWith(`${TOOLS}/`))).toBe(false);
  });

  it("lets a string make a line long, but not a comment, code or a regular expression", () => {
    const long = "x".repeat(MAX);
    expect(longLines("a.ts", `const a = "${long}";\nconst b = \`\${a}${long}\`;\n`)).toEqual([]);
    expect(longLines("a.tsx", `const c = <a title="${long}" />;\n`)).toEqual([]);
    expect(longLines("a.ts", `const a = 1; // ${long}\n`)).toEqual([{ line: 1, outside: MAX + 16 }]);
    expect(longLines("a.ts", `/** ${long} */\nconst a = 1;\n`)).toEqual([{ line: 1, outside: MAX + 7 }]);
    expect(longLines("a.ts", `const r = /${long}/;\n`)).toEqual([{ line: 1, outside: MAX + 13 }]);
    expect(longLines("a.ts", `const ${long} = 1;\n`)).toEqual([{ line: 1, outside: MAX + 11 }]);
    expect(longLines("a.ts", `const a = "${long}" + b + c; // ${"y".repeat(MAX - 20)}\n`)).toEqual([
      { line: 1, outside: MAX + 3 },
    ]);
  });

  it("finds no product line over the width outside strings", () => {
    const offenders = files.flatMap((file) =>
      longLines(file, readFileSync(join(ROOT, file), "utf8")).map(
        ({ line, outside }) => `${file}:${line} (${outside})`,
      ),
    );
    expect(offenders).toEqual([]);
  });
});
