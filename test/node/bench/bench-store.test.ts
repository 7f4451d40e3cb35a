/**
 * `palimpsest bench store --json` end to end on the smallest shared history
 * (bip-0340, 198 revisions): the Worker really starts in workerd, the
 * history really goes through the PageStore, and every revision read back is
 * verified by the bench itself. This checks the output contract and the
 * storage property that does not depend on the machine's speed; the timings
 * are only checked to be positive. Skipped when the shared corpus is absent.
 *
 * `max_blob_reads_per_read` is what the origin reports about itself
 * (`x-read-cost`), so it is not asserted here: the bound of two blob reads
 * per read is counted at the KV binding by
 * test/workers/storage/blob-reads-integration-self.test.ts.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { STORE_ROW_KEYS } from "../../../src/bench/store/run.ts";

const run = promisify(execFile);
const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = fileURLToPath(new URL("../../../src/cli/palimpsest.js", import.meta.url));
const HISTORY = fileURLToPath(new URL("../../../../shared/corpus/histories/bip-0340.xml.br", import.meta.url));

describe.skipIf(!existsSync(HISTORY))("palimpsest bench store --json (bip-0340)", () => {
  it("stores the history in fewer bytes than per-revision gzip, and reads every sampled revision back verified", { timeout: 120_000 }, async () => {
    // 40 random revisions (plus the first and the last) are read back, not all 198: the same checks, fewer reads.
    const { stdout } = await run(process.execPath, [CLI, "bench", "store", "--json", "--read-sample", "40", HISTORY], { cwd: REPO, maxBuffer: 1 << 20 });
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const row = JSON.parse(lines[0]!) as Record<string, unknown>;

    expect(Object.keys(row)).toEqual([...STORE_ROW_KEYS]);
    expect(row.history).toBe("bip-0340");
    for (const key of STORE_ROW_KEYS.filter((k) => k !== "history" && k !== "baseline_git_pack_ratio")) {
      expect(typeof row[key], key).toBe("number");
      expect(row[key] as number, key).toBeGreaterThan(0);
    }
    // null only where git is not installed.
    expect(row.baseline_git_pack_ratio === null || (row.baseline_git_pack_ratio as number) > 0).toBe(true);

    expect(row.revisions).toBe(198);
    expect(row.ratio).toBeCloseTo((row.stored_bytes as number) / (row.raw_bytes as number), 3);
    expect(row.ratio as number).toBeLessThan(row.baseline_per_rev_gzip_ratio as number);
  });
});
