/**
 * `palimpsest bench tiers --json --quick` end to end: three fresh Workers
 * really start in workerd (9 regions × 3 tiers each, injected inter-region
 * latency), a Zipf read mix with interleaved writes and a purge burst really
 * run through the tiers and the purge queues. This checks the output
 * contract and the properties that do not depend on the machine's speed:
 * no purge lost, no read staler than its bound, and origin renders as the
 * Worker itself counts them (TierCache `origin_fetch` counters plus the
 * edge's own renders, via GET /api/tiers): exactly one per read without the
 * tiers, fewer than the reads with them. Timings are only checked to be numbers.
 */
import { describe, expect, it } from "vitest";
import { benchRows } from "./support/run-bench.ts";
import { TIERS_ROW_KEYS } from "../../../../src/tools/bench/tiers/run.ts";

describe("palimpsest bench tiers --json --quick", () => {
  it(
    "prints tiered-fanout, tiered-direct and no-tier with no lost purge and no read beyond its staleness bound",
    { timeout: 90_000 },
    async () => {
      // A small workload with short hops (purge delivery to every tier is what takes the time): every phase
      // still runs, every tier still takes every purge, and every purge is still audited.
      const args = [
        "tiers",
        "--json",
        "--quick",
        "--reads",
        "100",
        "--pages",
        "4",
        "--burst-purges",
        "9",
        "--latency-ms",
        "5",
      ];
      const rows = await benchRows(args, { timeout: 88_000 });

      expect(rows.map((r) => r.scenario)).toEqual(["tiered-fanout", "tiered-direct", "no-tier"]);
      for (const row of rows) {
        expect(Object.keys(row)).toEqual([...TIERS_ROW_KEYS]);
        for (const key of TIERS_ROW_KEYS.filter((k) => k !== "scenario"))
          expect(typeof row[key], `${row.scenario} ${key}`).toBe("number");
        expect(row.reads as number).toBeGreaterThan(0);
        expect(row.purges as number).toBeGreaterThan(0);
        expect(row.lost_purges, `${row.scenario} lost_purges`).toBe(0);
        expect(row.stale_reads_beyond_bound, `${row.scenario} stale_reads_beyond_bound`).toBe(0);
      }
      // Without tiers every read renders at the origin, once, and a specific revision's read once more, for
      // its place in time (Memento links); a cache on the way would render less.
      const noTier = rows[2]!;
      expect(noTier.origin_fetches as number, "no-tier origin renders").toBeGreaterThan(noTier.reads as number);
      expect(noTier.origin_fetches as number, "no-tier origin renders").toBeLessThanOrEqual(
        2 * (noTier.reads as number),
      );
      expect(noTier.hit_ratio_lower).toBe(0);
      expect(noTier.origin_offload).toBe(1);
      // With the tiers on, the origin renders for some reads but not all (new revisions are written during the mix).
      for (const tiered of rows.slice(0, 2)) {
        expect(tiered.origin_fetches as number, `${tiered.scenario} origin renders`).toBeGreaterThan(0);
        expect(tiered.origin_fetches as number, `${tiered.scenario} origin renders`).toBeLessThan(
          tiered.reads as number,
        );
        expect(tiered.origin_offload, `${tiered.scenario} origin_offload`).toBe(
          Number(((noTier.origin_fetches as number) / (tiered.origin_fetches as number)).toFixed(2)),
        );
      }
    },
  );
});
