/**
 * benchLz4Variants on generated blocks with the quick policy: one row per
 * decoder, speeds that are numbers, the reference at ratio 1, and a bandit
 * that learns in Node (its clock works) — the contract, not the speeds.
 */
import "../../../../src/codec/install-node.ts";
import { describe, expect, it } from "vitest";
import { benchLz4Variants } from "../../../../src/tools/bench/lz4-variants.ts";
import { QUICK_POLICY } from "../../../../src/tools/bench/harness/index.ts";
import { LZ4_VARIANTS, lz4Compress, lz4VariantChoice } from "../../../../src/codec/index.ts";

function page(seed: number, length: number): Uint8Array {
  const words = ['<div class="note">', "archive", "revision", "</div>\n", "edge", "cache", "tier", "<p>", "</p>"];
  let text = "";
  let x = seed;
  while (text.length < length) {
    x = (x * 1103515245 + 12345) >>> 0;
    text += words[x % words.length] + " ";
  }
  return new TextEncoder().encode(text.slice(0, length));
}

describe("benchLz4Variants", () => {
  it("times every fixed variant, the bandit and the reference on the same blocks", () => {
    const blocks = [1, 2, 3, 4].map((s) => lz4Compress(page(s, 120_000), { level: s % 2 === 0 ? 9 : 0 }));
    const report = benchLz4Variants(blocks, { ...QUICK_POLICY, minPasses: 3 });
    expect(report.rows.map((r) => r.variant)).toEqual(["reference", ...LZ4_VARIANTS, "bandit"]);
    for (const r of report.rows) expect(r.mb_per_s).toBeGreaterThan(0);
    expect(report.rows[0]!.ratio_vs_reference).toBe(1);
    expect(LZ4_VARIANTS).toContain(report.best_fixed);
    expect(LZ4_VARIANTS).toContain(report.bandit_choice);
    // Node's clock resolves a 120 KB decode, so the bandit's passes taught it something.
    expect(lz4VariantChoice().arms.some((a) => a.samples > 0)).toBe(true);
  });

  it("refuses an empty block list", () => {
    expect(() => benchLz4Variants([], QUICK_POLICY)).toThrow(/no blocks/);
  });
});
