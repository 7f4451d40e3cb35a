/**
 * The docs claim no Cache-Control the code does not send. Every inline code
 * span in README.md and docs/*.md that gives a `max-age` (with or without a
 * leading `Cache-Control:`) must be, directive by directive, part of a value
 * the Worker's code writes: `CACHE_CONTROL` (src/representation/cache-control.ts)
 * or a string literal with `max-age=` in src/ (tools left out) and workers/,
 * where a template's `${…}` stands for a number. So a doc that still says
 * revisions are `public, max-age=31536000, immutable` fails here.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CACHE_CONTROL } from "../../../src/representation/cache-control.ts";
import { DOCS, ROOT } from "./support/docs.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (path === "src/tools") return [];
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

const directives = (value: string): string[] =>
  value
    .split(",")
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);

/** One value the code sends, as a pattern per directive (a template's `${…}` is a number). */
function patternsOf(value: string): RegExp[] {
  return directives(value).map(
    (d) =>
      new RegExp(
        `^${d
          .split(/\$\{[^}]*\}/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
          .join("\\d+")}$`,
      ),
  );
}

/** Every Cache-Control value the Worker's code writes. */
function sentValues(): string[] {
  const literals = ["src", "workers"].flatMap(sourceFiles).flatMap((file) => {
    const text = readFileSync(join(ROOT, file), "utf8");
    return [...text.matchAll(/(["'`])((?:(?!\1)[^\\\n])*?max-age=(?:(?!\1)[^\\\n])*?)\1/g)].map((m) => m[2]!);
  });
  return [...new Set([...Object.values(CACHE_CONTROL), ...literals])];
}

/** The Cache-Control values the docs give: code spans with a max-age, without a leading `Cache-Control:`. */
function claimed(): Array<{ doc: string; value: string }> {
  return DOCS.flatMap((doc) => {
    // Fenced blocks are examples (and their fences would pair up the backticks wrongly).
    const text = readFileSync(join(ROOT, doc), "utf8").replace(/^\s*(```|~~~)[\s\S]*?^\s*\1[^\n]*$/gm, "");
    return [...text.matchAll(/`([^`]+)`/g)]
      .map((m) => m[1]!.replace(/\s+/g, " ").trim())
      .filter((span) => /max-age=/i.test(span))
      .map((span) => ({ doc, value: span.replace(/^cache-control:\s*/i, "") }));
  });
}

/** A claim holds if one value the code sends has every directive it names. */
function sentBy(value: string, sent: readonly string[]): boolean {
  return sent.some((s) => {
    const patterns = patternsOf(s);
    return directives(value).every((d) => patterns.some((p) => p.test(d)));
  });
}

describe("the docs' Cache-Control", () => {
  const sent = sentValues();

  it("finds what the code sends and what the docs claim", () => {
    expect(sent).toContain(CACHE_CONTROL.revision);
    expect(claimed().length).toBeGreaterThan(3);
  });

  it("claims only values the code sends", () => {
    const wrong = claimed().filter((c) => !sentBy(c.value, sent));
    expect(wrong, `the code sends: ${sent.join(" | ")}`).toEqual([]);
  });

  it("tells a claim the code does not send apart", () => {
    expect(sentBy("public, max-age=31536000, immutable", sent)).toBe(false);
    expect(sentBy("public, max-age=600, stale-while-revalidate=86400", sent)).toBe(true);
    expect(sentBy("max-age=600, stale-while-revalidate=86400", sent)).toBe(true);
    expect(sentBy("public, max-age=600, stale-while-revalidate=3600", sent)).toBe(false);
  });
});
