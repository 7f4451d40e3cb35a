/**
 * What the tiers bench checks after a scenario's phases: purges some tier
 * never took, latest reads staler than their bound, and origin renders as
 * the Worker counts them.
 *
 * @example
 * const { lost } = await auditPurges(client, ids, log);
 * const { beyond } = staleReads(mix.reads, topology.maxStaleSeconds);
 */
import { runLimited } from "../../../lib/run-limited.ts";
import type { ArchiveClient } from "../../local/archive-client.ts";
import type { TiersBody } from "../../../wire.ts";
import type { ReadRecord } from "./phases.ts";

/**
 * Origin renders so far, as the Worker counts them: every TierCache's
 * `origin_fetch` plus the edge's own renders (per isolate; the bench's one
 * local workerd has one).
 */
export function originRenders(stats: TiersBody): number {
  const edge = stats.lower.isolateCounters.originRenders;
  if (typeof edge !== "number") throw new Error("GET /api/tiers reports no lower.isolateCounters.originRenders");
  return stats.tiers.reduce((n, t) => n + (t.counters.origin_fetch ?? 0), 0) + edge;
}

/** The TierCaches' origin renders by the kind of answer (`origin_fetch_<kind>` counters): what the tiers went to the origin for. */
export function originRendersByKind(stats: TiersBody): Record<string, number> {
  const byKind: Record<string, number> = {};
  for (const t of stats.tiers)
    for (const [name, n] of Object.entries(t.counters))
      if (name.startsWith("origin_fetch_"))
        byKind[name.slice("origin_fetch_".length)] = (byKind[name.slice("origin_fetch_".length)] ?? 0) + n;
  return byKind;
}

/**
 * Purges some tier has not taken: every sequence of every queue that a
 * tier's pointer has not acknowledged (the queue's `depth`) or that a tier
 * has not applied (its own `applied` record), from `GET /api/tiers`, plus
 * any purge the bench was given whose status is not acknowledged. This
 * covers purges whose id the bench never learnt, too.
 */
export async function auditPurges(
  client: ArchiveClient,
  tracked: readonly string[],
  log: (msg: string) => void,
): Promise<{ lost: number; stats: TiersBody }> {
  const lost = new Set<string>();
  await runLimited(tracked, 8, async (id) => {
    const status = await client.purgeStatus(id).catch(() => null);
    if (!status?.acknowledged) lost.add(id);
  });
  const stats = await client.tierStats();
  for (const q of stats.queues) {
    if (q.lastSeq === 0) continue;
    const applied = Math.min(...stats.tiers.map((t) => t.applied[q.queue]?.seq ?? 0));
    const acknowledged = q.lastSeq - q.depth;
    for (let seq = Math.min(applied, acknowledged) + 1; seq <= q.lastSeq; seq++) lost.add(`${q.queue}:${seq}`);
    if (applied < acknowledged)
      log(`${q.queue}: acknowledged up to ${acknowledged}, but some tier applied only up to ${applied}`);
  }
  if (lost.size > 0)
    log(`purges not taken by every tier: ${[...lost].slice(0, 10).join(", ")}${lost.size > 10 ? ", …" : ""}`);
  return { lost: lost.size, stats };
}

/**
 * Latest-revision reads older than a write whose purges every tier had
 * acknowledged before the read started: `beyond` their bound (0 for
 * regional, upper and origin; max-stale for the lower tier, which may serve
 * an entry that long), or `within` it.
 */
export function staleReads(reads: readonly ReadRecord[], maxStaleSeconds: number): { beyond: number; within: number } {
  let beyond = 0;
  let within = 0;
  for (const r of reads) {
    if (!r.latest) continue;
    const bound = r.tier === "lower" ? maxStaleSeconds * 1000 : 0;
    const mustHave = Math.max(0, ...r.page.acked.filter((a) => a.ackedAt + bound < r.startedAt).map((a) => a.revision));
    const acknowledged = Math.max(0, ...r.page.acked.filter((a) => a.ackedAt < r.startedAt).map((a) => a.revision));
    if (r.revisionId < mustHave) beyond++;
    else if (r.revisionId < acknowledged) within++;
  }
  return { beyond, within };
}
