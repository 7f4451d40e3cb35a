/**
 * The trainer's scoring and selection: sums per pair, counts files, drops
 * one-file pairs, keeps the best and breaks ties by (length, index, transform)
 * whatever order the hits came in; the corpus split is fixed by path alone.
 */
import { describe, expect, it } from "vitest";
import { GainTally, type GainHit } from "../../../../src/tools/dict/select.ts";
import { partOf, typeOfPath } from "../../../../src/tools/dict/corpus.ts";

const hit = (length: number, index: number, transform: number, gain: number): GainHit => ({
  length,
  index,
  transform,
  gain,
});

describe("GainTally", () => {
  it("sums gain and hits per pair, counts each file once, and ignores non-positive gains", () => {
    const t = new GainTally();
    t.addFile([hit(4, 1, 0, 10), hit(4, 1, 0, 5), hit(6, 9, 1, -3), hit(6, 9, 2, 0)]);
    t.addFile([hit(4, 1, 0, 1)]);
    expect(t.scores()).toEqual([{ length: 4, index: 1, transform: 0, gain: 16, hits: 3, files: 2 }]);
    expect(t.fileCount).toBe(2);
  });

  it("keeps the best pairs seen in enough files, ties in table order", () => {
    const t = new GainTally();
    const a = [hit(9, 3, 0, 50), hit(4, 7, 1, 20), hit(4, 7, 0, 20), hit(5, 0, 0, 100), hit(8, 1, 0, 20)];
    t.addFile(a);
    t.addFile(a.filter((h) => h.length !== 5)); // the best-scoring pair appears in one file only
    const kept = t.select({ maxEntries: 3 });
    expect(kept.map((s) => [s.length, s.index, s.transform, s.gain])).toEqual([
      [9, 3, 0, 100],
      [4, 7, 0, 40],
      [4, 7, 1, 40],
    ]);
    expect(t.select({ maxEntries: 10, minFiles: 1 })[0]).toMatchObject({ length: 5, gain: 100, files: 1 });
  });

  it("selects the same pairs whatever order a file's hits arrive in", () => {
    const hits = Array.from({ length: 200 }, (_, i) => hit(4 + (i % 21), (i * 37) % 32, i % 5, 1 + (i % 3)));
    const one = new GainTally();
    const two = new GainTally();
    for (let file = 0; file < 2; file++) {
      one.addFile(hits);
      two.addFile([...hits].reverse());
    }
    expect(two.select({ maxEntries: 50 })).toEqual(one.select({ maxEntries: 50 }));
  });
});

describe("corpus split and types", () => {
  it("puts a path in the same part every time, about a third held out", () => {
    const keys = Array.from({ length: 3000 }, (_, i) => `html/site/page-${i}.html`);
    const held = keys.filter((k) => partOf(k) === "held-out").length;
    expect(held / keys.length).toBeGreaterThan(0.3);
    expect(held / keys.length).toBeLessThan(0.37);
    expect(keys.map(partOf)).toEqual(keys.map(partOf));
    expect(partOf("html/python3.11-doc/about.html")).toBe("held-out"); // its SHA-256 starts 0xb1: 177 % 3 = 0
  });

  it("takes the type from the extension", () => {
    expect(["a.html", "b.HTM", "c.css", "d.js", "e.mjs", "f.json", "g", "h.min.js"].map(typeOfPath)).toEqual([
      "html",
      "html",
      "css",
      "js",
      "js",
      undefined,
      undefined,
      "js",
    ]);
  });
});
