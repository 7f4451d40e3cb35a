/**
 * `palimpsest bench dashboard`: Lighthouse performance and accessibility
 * scores of every operator page, in Debian Chromium, against a local Worker,
 * with the public front page audited the same way as the baseline. See
 * src/tools/bench/dashboard/lighthouse.ts for every field.
 *
 * @example
 * npx palimpsest bench dashboard --json                    # about a minute
 * npx palimpsest bench dashboard --json --cpu-slowdown 16  # as a slower phone (or a loaded machine) would score
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { printLine } from "../harness/index.ts";
import type { DashboardBenchRow } from "../dashboard/lighthouse.ts";
import { CHROMIUM } from "../../local/chromium.ts";
import { logLine, parseIntOption, UsageError } from "../../local/output.ts";

interface DashboardFlags {
  json?: boolean;
  chrome: string;
  cpuSlowdown?: number;
}

function printRow(json: boolean): (row: DashboardBenchRow) => void {
  if (json) return (row) => printLine(JSON.stringify(row));
  return (row) => {
    if (row.row === "page") {
      const vs = row.vs_front_page
        ? `  (x${row.vs_front_page.performance} / x${row.vs_front_page.accessibility} of the front page)`
        : "";
      printLine(
        `${row.path.padEnd(40)} performance ${String(row.performance).padStart(3)}  accessibility ${String(row.accessibility).padStart(3)}  LCP ${row.lcp_ms} ms  TBT ${row.tbt_ms} ms  CLS ${row.cls}${vs}`,
      );
    } else
      printLine(
        `target ${row.met ? "met   " : "MISSED"} ${row.page} ${row.category}: want ${row.want}, got ${row.got}`,
      );
  };
}

export function registerBenchDashboard(bench: Command): void {
  bench
    .command("dashboard")
    .description("Lighthouse performance and accessibility of every dashboard page in Chromium, against the front page")
    .option("--json", "one JSON object per line: a page row per page, then targets")
    .option("--chrome <path>", "the Chromium to drive", CHROMIUM)
    .option(
      "--cpu-slowdown <n>",
      "Lighthouse's simulated CPU slowdown (default its own, 4)",
      parseIntOption("cpu-slowdown", 1, 100),
    )
    .action(async (flags: DashboardFlags) => {
      if (!existsSync(flags.chrome))
        throw new UsageError(`no Chromium at ${flags.chrome}: apt-get install chromium, or pass --chrome <path>`);
      // Imported when run: it loads wrangler and Lighthouse, which take seconds.
      const { benchDashboard } = await import("../dashboard/lighthouse.ts");
      const options = {
        chromePath: flags.chrome,
        log: logLine,
        ...(flags.cpuSlowdown === undefined ? {} : { cpuSlowdown: flags.cpuSlowdown }),
      };
      await benchDashboard(options, printRow(flags.json ?? false));
    });
}
