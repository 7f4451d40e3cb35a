/**
 * `palimpsest bench ...`: the performance checks, one subcommand per bench
 * (`codecs`, `store`, `tiers`, `purge`, `wire`, `dict`, `dashboard`, `hostile`). Each prints one JSON object per row with
 * `--json`, else a table (src/tools/bench/harness/report.ts).
 *
 * @example
 * npx palimpsest bench codecs                 # table, default corpus sample (~1 min)
 * npx palimpsest bench codecs --json --quick a.html b.css
 */
import type { Command } from "commander";
import { registerBenchCodecs } from "./codecs.ts";
import { registerBenchDashboard } from "./dashboard.ts";
import { registerBenchDict } from "./dict.ts";
import { registerBenchHostile } from "./hostile.ts";
import { registerBenchPurge } from "./purge.ts";
import { registerBenchStore } from "./store.ts";
import { registerBenchTiers } from "./tiers.ts";
import { registerBenchWire } from "./wire.ts";

export function registerBenchCommands(program: Command): void {
  const bench = program.command("bench").description("measure the archive's building blocks");
  registerBenchCodecs(bench);
  registerBenchStore(bench);
  registerBenchTiers(bench);
  registerBenchPurge(bench);
  registerBenchWire(bench);
  registerBenchDict(bench);
  registerBenchDashboard(bench);
  registerBenchHostile(bench);
}
