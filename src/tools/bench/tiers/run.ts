/**
 * `bench tiers`: what the tiered cache and the purge fanout buy, measured on
 * the project's own Worker running locally in workerd (Miniflare, through
 * wrangler's `unstable_startWorker`; see src/tools/local/local-worker.ts). Every region and
 * tier of wrangler.toml's default topology (9 regions × 3 TierCache
 * instances, upper tier in `upperRegion`, 2 purge queues per region) runs in
 * that one workerd, readers and writers pick their colo with the dev-only
 * `x-palimpsest-colo` header, and the Worker sleeps `interRegionLatencyMs`
 * (40 ms by default here) on every cross-region hop it makes: regional → upper
 * tier, queue → remote tier or remote Fanout, Fanout → owning queue, and, in
 * `no-tier`, reader's region → origin (which lives in the upper region).
 *
 * Scenarios, all in one run, each on a fresh Worker with fresh storage
 * (all started from one bundle of the Worker, so an edit mid-run changes none):
 *
 * | scenario | TOPOLOGY override |
 * |---|---|
 * | tiered-fanout | enabled, purgeDelivery "fanout": a queue delivers to its own region's tiers and to one Fanout per remote region |
 * | tiered-direct | enabled, purgeDelivery "direct": the queue delivers to every tier itself |
 * | no-tier | enabled false: every read goes to the origin (purges are still delivered) |
 *
 * Phases per scenario, never overlapping:
 * 1. seed (not measured): `pages` (40) pages of `seedRevisions` (6) revisions
 *    of about 2 KB, one batch each, from colos in turn; wait until their
 *    purges are acknowledged.
 * 2. mix: `reads` (3000) reads, with `concurrency` (16) operations in flight and on
 *    average one write per `writeEvery` (20) reads interleaved. Pages follow
 *    Zipf(s = 1.1) by rank; half the reads ask for a page's latest revision
 *    (`/page/{key}`), half for a specific revision (`/page/{key}/{id}`, the
 *    revision by a newest-first Zipf(1.1) over the page's revisions so far).
 *    Each operation comes from a colo drawn uniformly from all 36. A write
 *    appends one revision to a Zipf-chosen page (the next free page if that
 *    one already has a write in flight, so parents always match).
 * 3. burst: `burstPurges` (100) writes of one small (64-byte) revision, each
 *    to a distinct new page, from colos in turn over every region (so every
 *    queue gets some), `burstConcurrency` (32) in flight.
 * 4. drain and audit: wait up to `lostTimeoutMs` (30 s) for every purge,
 *    then check every purge's status, every queue's pointers and every
 *    tier's applied sequence (`GET /api/tiers`).
 *
 * All regions share one workerd process (one isolate thread for every
 * Durable Object), so under the mix's load latencies include queueing in
 * that one thread, and a busy machine slows everything: compare the
 * scenarios of one run, not runs on different machines.
 *
 * Row fields (one JSON line per scenario, in this order):
 *
 * | field | meaning |
 * |---|---|
 * | scenario | as above |
 * | reads | mix reads that answered 200 with the debug headers |
 * | hit_ratio_lower | reads served by `lower` (x-palimpsest-tier) / reads |
 * | hit_ratio_regional | reads served by `regional` / reads that reached the regional tier (reads − lower hits) |
 * | origin_fetches | origin renders the Worker did for the mix, counted by the Worker: every TierCache's `origin_fetch` counter plus the edge's own renders (`lower.isolateCounters.originRenders`: tiers disabled or gone around), from `GET /api/tiers` after the mix (and its purges) settled minus before it. One local workerd isolate serves every request here, so its per-isolate count is the whole count. In no-tier, every read renders once, and a specific revision's read once more for its Memento links (the page's memento index, a small answer of its own, src/origin/memento-answers.ts) |
 * | origin_offload | no-tier's `origin_fetches` / this scenario's, in the same run (1 for no-tier itself; null if the run has no no-tier scenario): how many renders the tiers spared the origin |
 * | read_ms_p50, read_ms_p99 | wall-clock ms per mix read, request to last body byte |
 * | purges | mix writes (each produces one purge) |
 * | purge_ack_ms_p50, purge_ack_ms_p99 | per mix purge: the latest per-tier `ackedAt` in `GET /api/purges/{id}` minus the event's `createdAt` (see purge-tracker.ts for why this, not poll time); null without purges |
 * | purges_per_s | burst writes / (moment the last burst purge was acknowledged by every tier, per `ackedAt` − burst start); the writes' own time is included, as purges come from writes |
 * | lost_purges | purges of any phase (seed, mix, burst) that some tier had not taken `lostTimeoutMs` after their phase: the bench's purge ids whose status is not `acknowledged`, plus every queue sequence past the lowest pointer (`depth` in `GET /api/tiers`) or past the lowest `applied` sequence any tier reports for that queue |
 * | stale_reads_beyond_bound | latest-revision reads that returned a revision older than one whose purge was fully acknowledged (`ackedAt`) before the read started, beyond the bound: 0 for reads served by regional, upper or origin (they must be current as of every acknowledged purge); `maxStaleSeconds` (300) for reads served by lower (a colo's Cache API may serve an entry until max-stale, revalidating it in the background past `refreshSeconds`; purges never reach it, DESIGN "Tiers") |
 *
 * Rows are printed once every scenario has run, as `origin_offload` needs
 * no-tier's count. Ratios are fractions rounded to 4 digits (`origin_offload`
 * to 2), times ms rounded to 2. Progress,
 * failures and context figures (write latency, burst write time, lower reads
 * stale within their bound, the tiers' own counters) go to stderr. Requests
 * that fail are not retried (except POSTs that wrangler's dev proxy lost, see
 * retryLostByDevProxy in src/tools/local/archive-client.ts): they are counted, reported on stderr, and make the command exit 1
 * after every row is printed.
 *
 * @example
 * await benchTiers({ ...DEFAULT_TIERS_OPTIONS, log: console.error }, (row) => console.log(JSON.stringify(row)));
 */
import { ArchiveClient, retryLostByDevProxy } from "../../local/archive-client.ts";
import { startLocalWorker } from "../../local/local-worker.ts";
import { bundleWorker, type WorkerBundle } from "../../local/worker-bundle.ts";
import { round, roundedPercentile } from "../harness/index.ts";
import { benchVars, readTopology, workerLogLevel, type TopologyVars } from "../worker-config.ts";
import { auditPurges, staleReads } from "./audit.ts";
import { runBurst, runMix, seed, type MixResult } from "./phases.ts";
import { ScenarioRun } from "./scenario.ts";

export const TIERS_ROW_KEYS = [
  "scenario",
  "reads",
  "hit_ratio_lower",
  "hit_ratio_regional",
  "origin_fetches",
  "origin_offload",
  "read_ms_p50",
  "read_ms_p99",
  "purges",
  "purge_ack_ms_p50",
  "purge_ack_ms_p99",
  "purges_per_s",
  "lost_purges",
  "stale_reads_beyond_bound",
] as const;

export type ScenarioName = "tiered-fanout" | "tiered-direct" | "no-tier";

export interface TiersRow {
  scenario: ScenarioName;
  reads: number;
  hit_ratio_lower: number;
  hit_ratio_regional: number;
  origin_fetches: number;
  origin_offload: number | null;
  read_ms_p50: number;
  read_ms_p99: number;
  purges: number;
  purge_ack_ms_p50: number | null;
  purge_ack_ms_p99: number | null;
  purges_per_s: number;
  lost_purges: number;
  stale_reads_beyond_bound: number;
}

export interface Scenario {
  name: ScenarioName;
  enabled: boolean;
  purgeDelivery: "fanout" | "direct";
}

export const SCENARIOS: readonly Scenario[] = [
  { name: "tiered-fanout", enabled: true, purgeDelivery: "fanout" },
  { name: "tiered-direct", enabled: true, purgeDelivery: "direct" },
  { name: "no-tier", enabled: false, purgeDelivery: "fanout" },
];

export interface TiersBenchOptions {
  reads: number;
  writeEvery: number;
  pages: number;
  seedRevisions: number;
  zipfS: number;
  concurrency: number;
  latencyMs: number;
  burstPurges: number;
  burstConcurrency: number;
  lostTimeoutMs: number;
  /** How often each followed purge's status is read, and how many status reads run at once. */
  pollIntervalMs: number;
  pollConcurrency: number;
  seed: number;
  log: (msg: string) => void;
}

/** About a minute per scenario on a laptop-class machine. */
export const DEFAULT_TIERS_OPTIONS: Omit<TiersBenchOptions, "log"> = {
  reads: 3000,
  writeEvery: 20,
  pages: 40,
  seedRevisions: 6,
  zipfS: 1.1,
  concurrency: 16,
  latencyMs: 40,
  burstPurges: 100,
  burstConcurrency: 32,
  lostTimeoutMs: 30_000,
  pollIntervalMs: 10,
  pollConcurrency: 8,
  seed: 1,
};

/** For tests and smoke runs: every phase runs, the numbers are noisy. */
export const QUICK_TIERS_OPTIONS: Omit<TiersBenchOptions, "log"> = {
  ...DEFAULT_TIERS_OPTIONS,
  reads: 300,
  pages: 12,
  seedRevisions: 3,
  burstPurges: 18,
};

/** Thrown after every row is printed when some requests failed. */
export class TiersBenchFailures extends Error {}

export async function benchTiers(
  o: TiersBenchOptions,
  onRow: (row: TiersRow) => void,
  scenarios: readonly Scenario[] = SCENARIOS,
): Promise<void> {
  // Both take seconds and neither needs the other.
  const [bundle, topology] = await Promise.all([bundleWorker(), readTopology()]);
  const failures: string[] = [];
  const rows: TiersRow[] = [];
  try {
    for (const scenario of scenarios) {
      const { row, errors } = await runScenario({ bundle, topology }, scenario, o);
      rows.push(row);
      failures.push(...errors.map((e) => `${scenario.name}: ${e}`));
    }
  } finally {
    bundle.dispose();
  }
  const noTier = rows.find((r) => r.scenario === "no-tier");
  for (const row of rows)
    onRow({
      ...row,
      origin_offload:
        noTier === undefined || row.origin_fetches === 0 ? null : round(noTier.origin_fetches / row.origin_fetches, 2),
    });
  if (failures.length > 0) {
    for (const f of failures.slice(0, 20)) o.log(`bench tiers: ${f}`);
    throw new TiersBenchFailures(`${failures.length} request(s) failed; first: ${failures[0]}`);
  }
}

/** One scenario on a fresh Worker with fresh storage. */
export async function runScenario(
  base: { bundle: WorkerBundle; topology: TopologyVars },
  scenario: Scenario,
  o: TiersBenchOptions,
): Promise<{ row: TiersRow; errors: string[] }> {
  const log = (msg: string) => o.log(`bench tiers [${scenario.name}]: ${msg}`);
  const { bundle } = base;
  const topology: TopologyVars = {
    ...base.topology,
    enabled: scenario.enabled,
    purgeDelivery: scenario.purgeDelivery,
    interRegionLatencyMs: o.latencyMs,
  };
  const worker = await startLocalWorker({ bundle, vars: benchVars(topology), logLevel: workerLogLevel() });
  try {
    const client = new ArchiveClient({
      url: worker.url,
      token: worker.token,
      attempts: 4,
      baseDelayMs: 50,
      retryable: retryLostByDevProxy,
    });
    const run = new ScenarioRun(client, topology, o, log);
    return { row: await measure(run, scenario), errors: run.errors };
  } finally {
    await worker.stop();
  }
}

async function measure(run: ScenarioRun, scenario: Scenario): Promise<TiersRow> {
  await seed(run);
  const mix = await runMix(run);
  const burst = await runBurst(run);
  // Audit every purge: acknowledged, and every tier's applied sequence agrees.
  const { lost, stats } = await auditPurges(run.client, [...run.purges.map((t) => t.id), ...burst.ids], run.log);
  const counter = (name: string) => stats.tiers.reduce((n, t) => n + (t.counters[name] ?? 0), 0);
  if (scenario.enabled) {
    run.log(
      `tier counters: ${counter("origin_fetch")} origin renders by the upper tier, ${counter("coalesced")} coalesced misses, ${counter("purge")} purges applied`,
    );
    const kinds = Object.entries(mix.rendersByKind).map(([kind, n]) => `${kind} ${n}`);
    run.log(`mix: origin renders by the upper tier by kind: ${kinds.join(", ") || "none"}`);
  }
  const ackMs = (await Promise.all(mix.purges.map((t) => t.outcome))).flatMap((out) =>
    out.ackMs === null ? [] : [out.ackMs],
  );
  const stale = staleReads(mix.reads, run.topology.maxStaleSeconds);
  if (run.client.retries > 0)
    run.log(
      `${run.client.retries} POST(s) lost by wrangler's dev proxy were retried; ${run.untracked} of them had landed (purge id unknown, audited by sequence)`,
    );
  run.log(
    `latest reads older than an acknowledged write but within their bound (lower tier, max-stale ${run.topology.maxStaleSeconds} s): ${stale.within}`,
  );
  return tiersRow(
    scenario,
    mix,
    { ackMs, purgesPerSecond: burst.purgesPerSecond, lost, staleBeyond: stale.beyond },
    run.log,
  );
}

function tiersRow(
  scenario: Scenario,
  mix: MixResult,
  purges: { ackMs: number[]; purgesPerSecond: number; lost: number; staleBeyond: number },
  log: (msg: string) => void,
): TiersRow {
  const { reads } = mix;
  const served = (tier: string) => reads.filter((r) => r.tier === tier).length;
  const lower = served("lower");
  const reachedRegional = reads.length - lower;
  log(
    `mix: ${mix.renders} origin renders counted by the Worker; ${served("origin")} reads answered with x-palimpsest-tier: origin`,
  );
  return {
    scenario: scenario.name,
    reads: reads.length,
    hit_ratio_lower: reads.length === 0 ? 0 : round(lower / reads.length, 4),
    hit_ratio_regional: reachedRegional === 0 ? 0 : round(served("regional") / reachedRegional, 4),
    origin_fetches: mix.renders,
    origin_offload: null,
    read_ms_p50:
      roundedPercentile(
        reads.map((r) => r.ms),
        50,
      ) ?? 0,
    read_ms_p99:
      roundedPercentile(
        reads.map((r) => r.ms),
        99,
      ) ?? 0,
    purges: mix.writes,
    purge_ack_ms_p50: roundedPercentile(purges.ackMs, 50),
    purge_ack_ms_p99: roundedPercentile(purges.ackMs, 99),
    purges_per_s: round(purges.purgesPerSecond, 1),
    lost_purges: purges.lost,
    stale_reads_beyond_bound: purges.staleBeyond,
  };
}
