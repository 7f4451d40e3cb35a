/**
 * A small, generated web corpus for the trainer's tests: a few HTML, CSS and
 * JS files of seeded pseudo-prose and markup, written under a temp directory
 * with a MANIFEST.tsv, so the tests run without the shared corpus and every
 * run sees the same bytes.
 *
 * @example
 * const dir = writeFixtureCorpus(mkdtempSync(join(tmpdir(), "dict-")));
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { mulberry32 } from "../../../../../src/lib/mulberry32.ts";

const WORDS =
  "the archive keeps every revision of each page and serves them from the nearest data centre with history links " +
  "function return value element document window attribute position display background border margin padding " +
  "information available following description previous navigation content section article language";
const VOCAB = WORDS.split(" ");

function prose(rand: () => number, words: number): string {
  return Array.from({ length: words }, () => VOCAB[Math.floor(rand() * VOCAB.length)]!).join(" ");
}

function html(rand: () => number, n: number): string {
  const items = Array.from(
    { length: 30 + n * 5 },
    (_, i) => `<li class="item"><a href="/page/${i}">${prose(rand, 6)}</a></li>`,
  );
  return `<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${prose(rand, 3)}</title></head>\n<body>\n<p>${prose(rand, 80)}</p>\n<ul>\n${items.join("\n")}\n</ul>\n</body>\n</html>\n`;
}

function css(rand: () => number, n: number): string {
  const props = [
    "display: block;",
    "position: relative;",
    "background-color: #fff;",
    "margin: 0 auto;",
    "text-align: center;",
    "border: 1px solid #ddd;",
  ];
  return Array.from(
    { length: 40 + n * 5 },
    (_, i) => `.c${i} {\n  ${props[Math.floor(rand() * props.length)]}\n  ${props[i % props.length]}\n}\n`,
  ).join("");
}

function js(rand: () => number, n: number): string {
  return Array.from(
    { length: 30 + n * 5 },
    (_, i) =>
      `function handle${i}(element, options) {\n  // ${prose(rand, 8)}\n  return element.getAttribute("data-position") || options.default${i % 3};\n}\n`,
  ).join("");
}

/** Four files of each type; returns `dir`. */
/** A few transforms keep the candidate table (and the tests) small; the committed tables use all 121. */
export const TRANSFORMS = [0, 1, 2, 6, 9];

export function writeFixtureCorpus(dir: string, seed = 12): string {
  const rand = mulberry32(seed);
  const manifest = ["path\tbytes"];
  for (const [type, make] of [
    ["html", html],
    ["css", css],
    ["js", js],
  ] as const) {
    for (let n = 0; n < 4; n++) {
      const path = `${type}/fixture/file-${n}.${type}`;
      const text = make(rand, n);
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
      manifest.push(`${path}\t${Buffer.byteLength(text)}`);
    }
  }
  writeFileSync(join(dir, "MANIFEST.tsv"), manifest.join("\n") + "\n");
  return dir;
}
