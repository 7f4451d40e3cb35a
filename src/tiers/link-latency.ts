/**
 * Simulated latency between regions. In one local workerd every region is
 * the same process, so benchmarks inject a delay on each cross-region hop
 * to show what the tiers and the fanout save. Zero unless configured.
 */
import { topologyOf } from "../config/topology.ts";

export async function crossRegionHop(env: Env, from: string, to: string): Promise<void> {
  if (from === to) return;
  const ms = topologyOf(env).interRegionLatencyMs;
  if (ms > 0) await new Promise((r) => setTimeout(r, ms));
}
