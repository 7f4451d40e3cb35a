import { describe, expect, it } from "vitest";
import { compareTexts, type Row } from "../../../src/compare/diff.ts";
import { LIMITS } from "../../../src/limits.ts";

const lines = (n: number, f = (i: number) => `line ${i}`) =>
  Array.from({ length: n }, (_, i) => f(i + 1)).join("\n") + "\n";
const sizes = (a: string, b: string) => ({
  before: new TextEncoder().encode(a).byteLength,
  after: new TextEncoder().encode(b).byteLength,
});
const run = (a: string, b: string) => compareTexts(a, b, sizes(a, b));
const shape = (rows: Row[]) =>
  rows.map((r) =>
    r.kind === "gap"
      ? `gap ${r.lines}`
      : r.kind === "same"
        ? `  ${r.old}/${r.new}`
        : r.kind === "del"
          ? `- ${r.old}`
          : `+ ${r.new}`,
  );

describe("compareTexts", () => {
  it("numbers lines in both revisions and keeps three lines of context around a change", () => {
    const a = lines(20);
    const b = a.replace("line 10\n", "line ten\n").replace("line 11\n", "");
    const result = run(a, b);
    if (result.kind !== "diff") throw new Error(result.detail);
    expect(shape(result.rows)).toEqual([
      "gap 6",
      "  7/7",
      "  8/8",
      "  9/9",
      "- 10",
      "- 11",
      "+ 10",
      "  12/11",
      "  13/12",
      "  14/13",
      "gap 6",
    ]);
    expect([result.removed, result.added]).toEqual([2, 1]);
  });

  it("marks the changed words of a line next to its replacement", () => {
    const result = run("the quick brown fox\n", "the slow brown fox\n");
    if (result.kind !== "diff") throw new Error(result.detail);
    const [del, add] = result.rows;
    expect(del?.kind === "del" && del.parts?.filter((p) => p.changed).map((p) => p.text)).toEqual(["quick"]);
    expect(add?.kind === "add" && add.parts?.filter((p) => p.changed).map((p) => p.text)).toEqual(["slow"]);
  });

  it("shows a text without a final newline and an emptied revision", () => {
    const result = run("a\nb", "");
    if (result.kind !== "diff") throw new Error(result.detail);
    expect(shape(result.rows)).toEqual(["- 1", "- 2"]);
  });

  it("declines at each bound, and compares just under it", () => {
    const max = LIMITS.browse.compareMaxRevisionBytes;
    expect(compareTexts("", "", { before: max + 1, after: 0 })).toMatchObject({
      kind: "too_big",
      limit: "browse.compareMaxRevisionBytes",
    });
    expect(compareTexts("a\n", "b\n", { before: max, after: 2 }).kind).toBe("diff");
    const n = LIMITS.browse.compareMaxLines;
    expect(run(lines(n + 1), "x\n")).toMatchObject({ kind: "too_big", limit: "browse.compareMaxLines" });
    expect(run(lines(n), lines(n)).kind).toBe("diff");
    const edits = LIMITS.browse.compareMaxEditLength;
    expect(
      run(
        lines(edits / 2 + 1, (i) => `a${i}`),
        lines(edits / 2 + 1, (i) => `b${i}`),
      ),
    ).toMatchObject({ kind: "too_big", limit: "browse.compareMaxEditLength" });
    expect(
      run(
        lines(edits / 2 - 1, (i) => `a${i}`),
        lines(edits / 2 - 1, (i) => `b${i}`),
      ).kind,
    ).toBe("diff");
  });

  it(`shows at most ${LIMITS.browse.compareMaxShownLines} lines and says it stopped`, () => {
    // 450 lines changed (900 edits, under compareMaxEditLength), each shown with 6 lines of context
    // and a fold: about 4,050 rows, past the bound.
    const a = lines(9_000);
    const b = lines(9_000, (i) => (i % 20 === 0 ? `changed ${i}` : `line ${i}`));
    const result = run(a, b);
    if (result.kind !== "diff") throw new Error(result.detail);
    expect(result.rows).toHaveLength(LIMITS.browse.compareMaxShownLines);
    expect(result.truncated).toBe(true);
    expect(
      run(
        lines(10),
        lines(10, (i) => (i === 5 ? "x" : `line ${i}`)),
      ),
    ).toMatchObject({ truncated: false });
  });
});

describe("the line diff", () => {
  /** Longest common subsequence by dynamic programming: the edit count a shortest diff must reach. */
  function lcs(a: string[], b: string[]): number {
    const row = new Array<number>(b.length + 1).fill(0);
    for (const x of a) {
      let diag = 0;
      for (let j = 1; j <= b.length; j++) {
        const up = row[j]!;
        row[j] = x === b[j - 1] ? diag + 1 : Math.max(row[j]!, row[j - 1]!);
        diag = up;
      }
    }
    return row[b.length]!;
  }

  it("finds a shortest edit, and its rows rebuild both texts, on random texts", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 300; n++) {
      const pick = () => Array.from({ length: Math.floor(rand() * 12) }, () => "abcd"[Math.floor(rand() * 4)]!);
      const [a, b] = [pick(), pick()];
      const result = run(a.map((l) => `${l}\n`).join(""), b.map((l) => `${l}\n`).join(""));
      if (result.kind !== "diff") throw new Error(result.detail);
      expect(result.removed + result.added, `${a} → ${b}`).toBe(a.length + b.length - 2 * lcs(a, b));
      // A fold hides unchanged lines: only a diff without one can be read back whole.
      if (result.rows.some((r) => r.kind === "gap")) continue;
      const oldSide = result.rows.flatMap((r) => (r.kind === "same" || r.kind === "del" ? [r.text] : []));
      const newSide = result.rows.flatMap((r) => (r.kind === "same" || r.kind === "add" ? [r.text] : []));
      expect([oldSide, newSide], `${a} → ${b}`).toEqual([a, b]);
    }
  });
});
