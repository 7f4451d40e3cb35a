/**
 * `palimpsest bench hostile --json --quick` end to end: a real Worker in
 * workerd, the hostile requests (bench hostile's rows) really sent over HTTP. This
 * checks the output contract and what a user of the archive would notice,
 * not timings: a dcb request naming a dictionary outside the window is
 * answered br, the big revision's Range is cut from its identity body, the
 * refused write bodies answer 413 and 400 without restarting workerd, no
 * tier holds more than its budget after the walk, and an anonymous export
 * of the corpus page is made once, then a tier hit, then a 304.
 */
import { describe, expect, it } from "vitest";
import { benchRows } from "./support/run-bench.ts";
import { LIMITS } from "../../../../src/limits.ts";
import {
  BIG_REVISION_BYTES,
  type HostileLoadRow,
  type HostileMeasureRow,
  type HostileRow,
  type HostileSummaryRow,
  type HostileWalkRow,
} from "../../../../src/tools/bench/hostile/run.ts";

const NAMES = [
  "baseline.cached_read",
  "compare.first",
  "compare.repeat",
  "dcb.predecessor.first",
  "dcb.predecessor.repeat",
  "dcb.outside_window.first",
  "dcb.outside_window.repeat",
  "br.big.identity",
  "br.big.full",
  "br.big.range",
  "tiers.max_stored_bytes",
  "tiers.total_stored_bytes",
  "tiers.max_disk_bytes",
  "tiers.total_disk_bytes",
  "export.anonymous.first",
  "export.anonymous.repeat",
  "export.anonymous.not_modified",
  "read.alone",
  "read.during_reads",
  "read.during_exports",
  "read.during_uncached_exports",
  "write.objects.cpu",
  "write.objects.peak_rss",
  "write.nested.cpu",
  "write.nested.peak_rss",
];

describe("palimpsest bench hostile --json --quick", () => {
  it("measures every hostile request, and the archive answers each as it should", { timeout: 170_000 }, async () => {
    const rows = await benchRows<HostileRow>(["hostile", "--json", "--quick"], { timeout: 165_000 });
    const measures = rows.filter((r): r is HostileMeasureRow => r.row === "measure");
    expect(measures.map((r) => r.name)).toEqual(NAMES);
    const of = (name: string) => measures.find((r) => r.name === name)!;
    for (const r of measures) {
      for (const key of ["value", "baseline", "ratio"] as const)
        expect(typeof r[key], `${r.name} ${key}`).toBe("number");
      expect(r.value, r.name).toBeGreaterThan(0);
      if (r.unit === "cpu_ms") expect(r.baseline, r.name).toBe(of("baseline.cached_read").value);
    }

    expect(of("baseline.cached_read")).toMatchObject({ status: 200, served_by: "lower" });
    expect(of("compare.first")).toMatchObject({ status: 200, served_by: "origin" });
    expect(of("compare.repeat").status).toBe(200);
    expect(of("compare.repeat").served_by).not.toBe("origin");

    // A browser's dictionary gets dcb; a hash from outside the window gets br, from the colo, never from the origin.
    expect(of("dcb.predecessor.first")).toMatchObject({ status: 200, content_encoding: "dcb" });
    expect(of("dcb.predecessor.repeat")).toMatchObject({ status: 200, content_encoding: "dcb" });
    for (const name of ["dcb.outside_window.first", "dcb.outside_window.repeat"])
      expect(of(name), name).toMatchObject({ status: 200, content_encoding: "br" });
    expect(of("dcb.outside_window.repeat").served_by).not.toBe("origin");

    // The big revision: whole, and an 11-byte Range cut from its identity body (never from one coded to cut it).
    const bigBytes = BIG_REVISION_BYTES;
    expect(bigBytes).toBeGreaterThan(LIMITS.tiers.maxEntryBytes);
    expect(of("br.big.identity")).toMatchObject({ status: 200, content_encoding: null, body_bytes: bigBytes });
    expect(of("br.big.full").status).toBe(200);
    expect(of("br.big.range")).toMatchObject({ status: 206, content_range: `bytes 0-10/${bigBytes}` });

    // Exports of the corpus page: the first made at the origin, the repeat a tier hit, the conditional one a 304;
    // the timed reads all answered, beside each load.
    expect(of("export.anonymous.first")).toMatchObject({ status: 200, served_by: "origin" });
    expect(of("export.anonymous.repeat")).toMatchObject({ status: 200, served_by: "lower" });
    expect(of("export.anonymous.not_modified")).toMatchObject({ status: 304, served_by: "lower" });
    for (const name of ["read.alone", "read.during_reads", "read.during_exports", "read.during_uncached_exports"])
      expect(of(name), name).toMatchObject({ unit: "ms", baseline: of("read.alone").value });
    const loads = rows.filter((r): r is HostileLoadRow => r.row === "load");
    expect(loads.map((r) => r.name)).toEqual([
      "read.during_reads",
      "read.during_exports",
      "read.during_uncached_exports",
    ]);
    for (const load of loads) expect(load.exports, load.name).toBeGreaterThan(0);

    // Refused writes: over the batch limit and too deep, and workerd still the same process.
    expect(of("write.objects.cpu").status).toBe(413);
    expect(of("write.nested.cpu").status).toBe(400);

    const walk = rows.find((r): r is HostileWalkRow => r.row === "walk")!;
    expect(walk.statuses).toEqual({ 200: walk.reads });
    // Random dictionaries: some inside the window (dcb), most outside it (br).
    expect(walk.content_encodings.br).toBeGreaterThan(0);
    expect(walk.tiers).toBe(27);
    expect(of("tiers.max_stored_bytes").baseline).toBe(LIMITS.tiers.storedBytes);
    expect(of("tiers.max_stored_bytes").value!).toBeLessThanOrEqual(LIMITS.tiers.storedBytes);
    expect(of("tiers.total_stored_bytes").value!).toBeGreaterThanOrEqual(of("tiers.max_stored_bytes").value!);

    const summary = rows.at(-1) as HostileSummaryRow;
    expect(summary.row).toBe("summary");
    expect(summary.workerd_restarted).toBe(false);
    expect(summary.tier_budget_bytes).toBe(LIMITS.tiers.storedBytes);
    expect(summary.worst_anonymous.cpu_ms).toBe(
      Math.max(
        ...measures
          .filter((r) => r.unit === "cpu_ms" && !r.name.startsWith("write.") && r.name !== "baseline.cached_read")
          .map((r) => r.value!),
      ),
    );
  });
});
