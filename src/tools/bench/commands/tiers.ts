/**
 * `palimpsest bench tiers`: runs the tier simulation (9 regions × 3 tiers in
 * one local workerd, injected inter-region latency, a Zipf read mix with
 * interleaved writes, then a purge burst) for three scenarios in one run,
 * `tiered-fanout`, `tiered-direct` and `no-tier`, each on a fresh Worker.
 * See src/tools/bench/tiers/run.ts for every field and definition.
 *
 * @example
 * npx palimpsest bench tiers --json            # about 3 minutes
 * npx palimpsest bench tiers --json --quick    # smaller mix and burst, for tests
 */
import type { Command } from "commander";
import { fixed, rowPrinter, type Column } from "../harness/index.ts";
import type { TiersBenchOptions, TiersRow } from "../tiers/run.ts";
import { logLine, parseIntOption } from "../../local/output.ts";

/** The workload settings a flag of the same name (in kebab case) overrides: what it is, and its bounds. */
const TUNABLE = {
  reads: ["reads in each scenario's mix", 100, 1_000_000],
  pages: ["pages in the catalogue the mix reads and writes", 1, 10_000],
  burstPurges: ["writes (each one purge) in the purge burst", 1, 100_000],
  latencyMs: ["simulated delay per inter-region hop", 0, 10_000],
  concurrency: ["operations in flight during the mix", 1, 256],
  writeEvery: ["one write per this many reads, on average, in the mix", 1, 100_000],
  seed: ["seed for the operation plan", 0, 2 ** 31 - 1],
} as const satisfies Record<string, readonly [description: string, min: number, max: number]>;

type TiersFlags = { json?: boolean; quick?: boolean } & { [K in keyof typeof TUNABLE]?: number };

const COLUMNS: Column<TiersRow>[] = [
  ["scenario", -13, (r) => r.scenario],
  ["reads", 6, (r) => String(r.reads)],
  ["lower hit", 9, (r) => fixed(r.hit_ratio_lower, 3)],
  ["reg hit", 7, (r) => fixed(r.hit_ratio_regional, 3)],
  ["origin", 6, (r) => String(r.origin_fetches)],
  ["offload", 7, (r) => fixed(r.origin_offload, 2)],
  ["rd p50", 7, (r) => fixed(r.read_ms_p50, 1)],
  ["rd p99", 7, (r) => fixed(r.read_ms_p99, 1)],
  ["purges", 6, (r) => String(r.purges)],
  ["ack p50", 7, (r) => fixed(r.purge_ack_ms_p50, 0)],
  ["ack p99", 7, (r) => fixed(r.purge_ack_ms_p99, 0)],
  ["purge/s", 7, (r) => fixed(r.purges_per_s, 1)],
  ["lost", 4, (r) => String(r.lost_purges)],
  ["stale", 5, (r) => String(r.stale_reads_beyond_bound)],
];

async function tiers(flags: TiersFlags): Promise<void> {
  // Imported when run: it loads wrangler, which takes seconds.
  const { benchTiers, DEFAULT_TIERS_OPTIONS, QUICK_TIERS_OPTIONS } = await import("../tiers/run.ts");
  const options: TiersBenchOptions = { ...(flags.quick ? QUICK_TIERS_OPTIONS : DEFAULT_TIERS_OPTIONS), log: logLine };
  for (const name of Object.keys(TUNABLE) as (keyof typeof TUNABLE)[])
    if (flags[name] !== undefined) options[name] = flags[name];
  logLine(
    `bench tiers: ${options.reads} reads (1 write per ${options.writeEvery}) over ${options.pages} pages, Zipf s=${options.zipfS}, ` +
      `${options.concurrency} in flight, ${options.latencyMs} ms per inter-region hop, burst of ${options.burstPurges} purges`,
  );
  const out = rowPrinter(flags.json ?? false, COLUMNS);
  out.header();
  // Failed requests surface after every row is printed, as an error (exit 1) naming the first.
  await benchTiers(options, out.row);
}
/** Adds `tiers` to the `bench` command group. */
export function registerBenchTiers(bench: Command): void {
  const command = bench
    .command("tiers")
    .description(
      "simulate 9 regions × 3 tiers in a local workerd and compare tiered-fanout, tiered-direct and no-tier: hit ratios, origin fetches, read latency, purge acknowledgement latency and throughput, lost purges, stale reads",
    )
    .option("--json", "one JSON object per scenario")
    .option("--quick", "smaller mix and burst: noisy numbers, for tests");
  for (const [name, [description, min, max]] of Object.entries(TUNABLE)) {
    const flag = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    command.option(`--${flag} <n>`, description, parseIntOption(flag, min, max));
  }
  command.action((flags: TiersFlags) => tiers(flags));
}
