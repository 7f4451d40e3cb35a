/**
 * `palimpsest bench purge`: operator purges alone (`POST /api/purges`, every
 * kind) through the 9-region simulation, fanout delivery against direct
 * broadcast in the same run, one purge at a time, in a healthy burst and with a TierCache killed and
 * restored mid-burst: purges/s, time to completion, lost purges, the
 * fanout/direct ratios and the targets. See src/tools/bench/purge/run.ts
 * for every field and definition.
 *
 * @example
 * npx palimpsest bench purge --json            # a few minutes
 * npx palimpsest bench purge --json --quick    # tiny bursts, for tests
 */
import type { Command } from "commander";
import { fixed, printLine, rowPrinter, type Column } from "../harness/index.ts";
import type { PurgeBenchOptions, PurgeBenchRow, PurgeRow } from "../purge/run.ts";
import { PURGE_KINDS, type PurgeKind } from "../purge/workload.ts";
import { logLine, parseIntOption, UsageError } from "../../local/output.ts";

function parseKinds(value: string): PurgeKind[] {
  const kinds = value.split(",").map((k) => k.trim());
  const unknown = kinds.filter((k) => !(PURGE_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0 || kinds.length === 0)
    throw new UsageError(`--kinds takes a comma-separated list of ${PURGE_KINDS.join(", ")}; got "${value}"`);
  return kinds as PurgeKind[];
}

interface PurgeFlags {
  json?: boolean;
  kinds?: PurgeKind[];
  quick?: boolean;
  pages?: number;
  purgesPerKind?: number;
  concurrency?: number;
  latencyMs?: number;
  killTier?: string;
  killMs?: number;
  lostTimeoutMs?: number;
}

/** The workload settings a flag of the same name overrides. */
const TUNABLE = [
  "kinds",
  "pages",
  "purgesPerKind",
  "concurrency",
  "latencyMs",
  "killTier",
  "killMs",
  "lostTimeoutMs",
] as const;

const COLUMNS: Column<PurgeRow>[] = [
  ["delivery", -8, (r) => r.delivery],
  ["phase", -11, (r) => r.phase],
  ["kind", -10, (r) => r.kind],
  ["purges", 6, (r) => String(r.purges)],
  ["lost", 4, (r) => String(r.lost)],
  ["purge/s", 7, (r) => fixed(r.purges_per_s, 1)],
  ["ttc p50", 7, (r) => fixed(r.ttc_ms_p50, 0)],
  ["ttc p99", 7, (r) => fixed(r.ttc_ms_p99, 0)],
  ["ttc max", 7, (r) => fixed(r.ttc_ms_max, 0)],
  ["send ms", 7, (r) => String(r.send_ms)],
  ["429", 3, (r) => String(r.rate_limited)],
  ["killed", 0, (r) => (r.killed_tier ? `${r.killed_tier} for ${r.killed_ms} ms` : "-")],
];

/** Purge rows as a table; setup, ratios and targets as lines of text. */
function tablePrinter(): (row: PurgeBenchRow) => void {
  const table = rowPrinter(false, COLUMNS);
  return (row) => {
    if (row.row === "setup") {
      printLine(
        `${row.regions} regions, ${row.colos} colos, ${row.targets_per_purge} targets per purge, ${row.latency_ms} ms per inter-region hop; ${row.purge_tokens} purge tokens per Worker (busiest sent ${row.max_purges_per_token}; ${row.rate_limit})`,
      );
      table.header();
    } else if (row.row === "purges") table.row(row);
    else if (row.row === "ratio")
      printLine(
        `fanout/direct ${row.phase} ${row.kind}: purges/s x${fixed(row.purges_per_s_ratio, 2)}, p99 x${fixed(row.ttc_ms_p99_ratio, 2)}`,
      );
    else
      printLine(
        `target ${row.met ? "met   " : "MISSED"} ${row.target} [${row.phase} ${row.kind}]: want ${row.want}, got ${row.got ?? "-"}`,
      );
  };
}

async function purge(flags: PurgeFlags): Promise<void> {
  // Imported when run: it loads wrangler, which takes seconds.
  const { benchPurge, DEFAULT_PURGE_OPTIONS, QUICK_PURGE_OPTIONS } = await import("../purge/run.ts");
  const overrides: Partial<PurgeBenchOptions> = Object.fromEntries(
    TUNABLE.flatMap((name) => (flags[name] === undefined ? [] : [[name, flags[name]]])),
  );
  const options: PurgeBenchOptions = {
    ...(flags.quick ? QUICK_PURGE_OPTIONS : DEFAULT_PURGE_OPTIONS),
    ...overrides,
    log: logLine,
  };
  logLine(
    `bench purge: ${options.purgesPerKind} purges per kind, ${options.concurrency} in flight, over ${options.pages} warmed pages; ` +
      `${options.latencyMs} ms per inter-region hop; fanout then direct, one at a time, a healthy burst, then a burst with a tier killed for ${options.killMs} ms`,
  );
  // Failed requests surface after every row is printed, as an error (exit 1) naming the first.
  await benchPurge(options, flags.json ? (row) => printLine(JSON.stringify(row)) : tablePrinter());
}

/** Adds `purge` to the `bench` command group. */
export function registerBenchPurge(bench: Command): void {
  bench
    .command("purge")
    .description(
      "operator purges of every kind through 9 regions: fanout against direct delivery, one at a time, in a healthy burst and with a tier killed mid-burst; purges/s, time to completion, lost purges, targets",
    )
    .option("--json", "one JSON object per line: setup, one per delivery × phase × kind, ratios, targets")
    .option("--quick", "tiny bursts and short hops: noisy numbers, for tests")
    .option("--kinds <list>", `purge kinds to measure, comma-separated (default ${PURGE_KINDS.join(",")})`, parseKinds)
    .option("--pages <n>", "pages warmed into every tier before each burst", parseIntOption("pages", 1, 1000))
    .option("--purges-per-kind <n>", "purges in each burst", parseIntOption("purges-per-kind", 1, 10_000))
    .option("--concurrency <n>", "purges (and warm reads) in flight", parseIntOption("concurrency", 1, 256))
    .option("--latency-ms <n>", "simulated delay per inter-region hop", parseIntOption("latency-ms", 0, 10_000))
    .option("--kill-tier <name>", "the TierCache cut off in the tier-killed phase, e.g. weur/weur-b")
    .option("--kill-ms <n>", "how long the tier stays cut off", parseIntOption("kill-ms", 0, 600_000))
    .option(
      "--lost-timeout-ms <n>",
      "a purge not complete this long after its burst (and the restore) is lost",
      parseIntOption("lost-timeout-ms", 1000, 3_600_000),
    )
    .action((flags: PurgeFlags) => purge(flags));
}
