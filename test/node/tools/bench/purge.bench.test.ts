/**
 * `palimpsest bench purge --json --quick` end to end, at a tiny size: two
 * fresh Workers (fanout, then direct delivery) really start in workerd with
 * every region, colo and tier, warm a page into every tier, and take
 * operator purges through POST /api/purges under the bench's own named
 * tokens, healthy and with a TierCache really cut off and restored mid-burst
 * through the dev-only fault route. This checks the output contract and what
 * does not depend on the machine's speed: every purge completes (0 lost,
 * the killed tier's included), no purge was refused by the per-token rate
 * limit, the killed tier was really down, and every purge reached all 67
 * targets. Timings are only checked to be numbers.
 */
import { describe, expect, it } from "vitest";
import { benchRows } from "./support/run-bench.ts";
import { PURGE_ROW_KEYS } from "../../../../src/tools/bench/purge/run.ts";

type Row = Record<string, unknown>;

describe("palimpsest bench purge --json --quick", () => {
  it(
    "prints fanout and direct, healthy and tier-killed, with every purge complete and none rate-limited",
    { timeout: 150_000 },
    async () => {
      const args = [
        "purge",
        "--json",
        "--quick",
        "--kinds",
        "files,everything",
        "--pages",
        "1",
        "--purges-per-kind",
        "3",
        "--kill-ms",
        "1500",
      ];
      const rows = await benchRows<Row>(args, { timeout: 148_000 });
      const of = (kind: string) => rows.filter((r) => r.row === kind);

      const [setup] = of("setup");
      expect(setup).toMatchObject({ regions: 9, colos: 37, targets_per_purge: 67, purges_per_kind: 3 });
      // 2 kinds × 3 phases × 3 purges = 18 per Worker: one token would do, and none may exceed PURGE_RATE's 60.
      expect(setup!.purge_tokens).toBe(1);
      expect(setup!.max_purges_per_token as number).toBeLessThanOrEqual(60);

      const purges = of("purges");
      expect(purges.map((r) => `${r.delivery} ${r.phase} ${r.kind}`)).toEqual([
        "fanout lone files",
        "fanout lone everything",
        "fanout healthy files",
        "fanout healthy everything",
        "fanout tier-killed files",
        "fanout tier-killed everything",
        "direct lone files",
        "direct lone everything",
        "direct healthy files",
        "direct healthy everything",
        "direct tier-killed files",
        "direct tier-killed everything",
      ]);
      for (const r of purges) {
        const what = `${r.delivery} ${r.phase} ${r.kind}`;
        expect(Object.keys(r), what).toEqual([...PURGE_ROW_KEYS]);
        expect(r.purges, what).toBe(3);
        expect(r.completed, what).toBe(3);
        expect(r.lost, what).toBe(0);
        expect(r.rate_limited, what).toBe(0);
        for (const key of ["ttc_ms_p50", "ttc_ms_p99", "ttc_ms_max"])
          expect(typeof r[key], `${what} ${key}`).toBe("number");
        // One purge at a time measures latency only.
        expect(typeof r.purges_per_s, `${what} purges_per_s`).toBe(r.phase === "lone" ? "object" : "number");
        if (r.phase === "tier-killed") {
          expect(r.killed_tier, what).toBe(setup!.kill_tier);
          expect(r.killed_ms as number, what).toBeGreaterThanOrEqual(1500);
          // The tier was down from the first purge on, and held every one back until it was restored.
          expect(r.sent_while_killed, what).toBe(3);
          expect(r.completed_while_killed, what).toBe(0);
          expect(r.ttc_ms_p50 as number, what).toBeGreaterThan(1000);
        } else {
          expect(r.killed_tier, what).toBeNull();
          expect(r.sent_while_killed, what).toBeNull();
        }
      }

      expect(of("ratio").map((r) => `${r.phase} ${r.kind}`)).toEqual([
        "lone files",
        "lone everything",
        "healthy files",
        "healthy everything",
        "tier-killed files",
        "tier-killed everything",
      ]);
      for (const r of of("ratio")) {
        expect(typeof r.ttc_ms_p99_ratio).toBe("number");
        expect(r.purges_per_s_ratio === null).toBe(r.phase === "lone");
      }

      const targets = of("target");
      expect(targets.find((t) => t.target === "lost purges (both modes, every phase)")).toMatchObject({
        got: 0,
        met: true,
      });
      expect(targets.filter((t) => t.target === "fanout/direct purges/s")).toHaveLength(2);
      // Latency is taken one purge at a time: the target reads the lone phase's p50, not a burst's.
      const url = targets.find((t) => t.kind === "files" && String(t.target).startsWith("fanout URL purge p50"));
      expect(url).toMatchObject({
        phase: "lone",
        got: purges.find((r) => r.delivery === "fanout" && r.phase === "lone" && r.kind === "files")!.ttc_ms_p50,
      });
    },
  );
});
