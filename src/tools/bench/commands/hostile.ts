/**
 * `palimpsest bench hostile`: what an anonymous reader (and a write token's
 * refused bodies) can make the archive spend, on a local Worker in workerd:
 * CPU per request for compare, dcb and br of a big revision against a plain
 * cached read in the same run, each tier's stored bytes after a walk of old
 * revisions against its budget, and workerd's peak RSS under the largest
 * refused write bodies. See src/tools/bench/hostile/run.ts for every row.
 *
 * @example
 * npx palimpsest bench hostile            # table, about 3 minutes
 * npx palimpsest bench hostile --json --quick
 */
import type { Command } from "commander";
import { fixed, mixedRowPrinter, type Column } from "../harness/index.ts";
import type { HostileMeasureRow, HostileRow } from "../hostile/run.ts";
import { logLine, parseIntOption } from "../../local/output.ts";

interface HostileFlags {
  json?: boolean;
  quick?: boolean;
  walkReads?: number;
  walkRevisions?: number;
}

const MB = 1024 * 1024;
const amount = (r: HostileMeasureRow, x: number | null) =>
  r.unit === "bytes" ? fixed(x === null ? null : x / MB, 2) + " MiB" : fixed(x, 2) + " ms";

const COLUMNS: Column<HostileMeasureRow>[] = [
  ["row", -28, (r) => r.name],
  ["value", 14, (r) => amount(r, r.value)],
  ["baseline", 14, (r) => amount(r, r.baseline)],
  ["ratio", 9, (r) => fixed(r.ratio, 2)],
  ["n", 3, (r) => String(r.samples)],
  ["status", 6, (r) => (r.status === null ? "-" : String(r.status))],
  ["sent as", -8, (r) => (r.status === null ? "-" : (r.content_encoding ?? "identity"))],
  ["from", 0, (r) => r.served_by ?? "-"],
];

async function hostile(flags: HostileFlags): Promise<void> {
  // Imported when run: it loads wrangler, which takes seconds.
  const { benchHostile } = await import("../hostile/run.ts");
  const out = mixedRowPrinter(
    flags.json ?? false,
    COLUMNS,
    (r: HostileRow): r is HostileMeasureRow => r.row === "measure",
    (r) => JSON.stringify(r),
  );
  if (!flags.json)
    logLine(
      "bench hostile: workerd CPU per request (baseline: a cached read of a small revision), tier bytes against the budget, peak RSS of refused writes",
    );
  out.header();
  await benchHostile({
    quick: flags.quick,
    walkReads: flags.walkReads,
    walkRevisions: flags.walkRevisions,
    log: logLine,
    onRow: out.row,
  });
}

/** Adds `hostile` to the `bench` command group. */
export function registerBenchHostile(bench: Command): void {
  bench
    .command("hostile")
    .description(
      "what an anonymous client can make the archive spend: CPU of compare, dcb and big br requests against a cached read, tier storage after a walk, peak RSS of refused write bodies",
    )
    .option("--json", "one JSON object per line: measure rows, the walk, a summary")
    .option("--quick", "small pages, few repeats, a short walk and 2 MiB write bodies: checks behaviour, not figures")
    .option("--walk-reads <n>", "reads of old revisions in the tier walk", parseIntOption("walk-reads", 1, 1_000_000))
    .option("--walk-revisions <n>", "revisions in the walked history", parseIntOption("walk-revisions", 2, 500))
    .action((flags: HostileFlags) => hostile(flags));
}
