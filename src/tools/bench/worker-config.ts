/**
 * What the benches read back from wrangler.toml to configure the Worker they
 * start: `[vars.TOPOLOGY]`, which a bench overrides per scenario.
 *
 * @example
 * const topology = await readTopology();
 * await startLocalWorker({ bundle, vars: { ENVIRONMENT: "development", TOPOLOGY: { ...topology, enabled: false } } });
 */
import type { QueuePoolConfig } from "../../config/topology.ts";
import { WRANGLER_CONFIG } from "../local/local-worker.ts";

/** The parts of `[vars.TOPOLOGY]` the benches read or override. */
export interface TopologyVars {
  enabled: boolean;
  purgeDelivery: "fanout" | "direct";
  interRegionLatencyMs: number;
  upperRegion: string;
  refreshSeconds: number;
  maxStaleSeconds: number;
  queuePool: QueuePoolConfig;
  regions: Record<string, { colos: string[]; tiers: Record<string, number> }>;
}

/** wrangler.toml's `[vars.TOPOLOGY]`; throws if there is none. */
export async function readTopology(configPath = WRANGLER_CONFIG): Promise<TopologyVars> {
  // Imported here: wrangler takes seconds to load, and the benches' row definitions are imported without running them.
  const { unstable_readConfig } = await import("wrangler");
  // Typed here: wrangler's declared Config refers to types its package does not ship, so it reaches us unresolved.
  const config = unstable_readConfig({ config: configPath }, { hideWarnings: true }) as unknown;
  const { vars } = config as { vars: Record<string, unknown> };
  const topology = vars.TOPOLOGY;
  if (typeof topology !== "object" || topology === null) throw new Error(`${configPath} has no [vars.TOPOLOGY]`);
  return topology as TopologyVars;
}

/** Development mode (the colo simulation header works) with this topology. */
export function benchVars(topology: TopologyVars): Record<string, unknown> {
  return { ENVIRONMENT: "development", TOPOLOGY: topology };
}

/** `PALIMPSEST_BENCH_WORKER_LOG=warn` (or `log`) shows the Worker's own warnings, e.g. failed purge deliveries. */
export function workerLogLevel(): "error" | "warn" | "log" {
  const level = process.env.PALIMPSEST_BENCH_WORKER_LOG;
  return level === "warn" || level === "log" ? level : "error";
}
