/**
 * `bench tiers`: what the tiered cache and the purge fanout buy, measured on
 * the project's own Worker running locally in workerd (Miniflare, through
 * wrangler's `unstable_startWorker`; see local-worker.ts). Every region and
 * tier of wrangler.toml's default topology (9 regions × 3 TierCache
 * instances, upper tier in `upperRegion`, 2 purge queues per region) runs in
 * that one workerd, readers and writers pick their colo with the dev-only
 * `x-palimpsest-colo` header, and the Worker sleeps `interRegionLatencyMs`
 * (40 ms by default here) on every cross-region hop it makes: regional → upper
 * tier, queue → remote tier or remote Fanout, Fanout → owning queue, and, in
 * `no-tier`, reader's region → origin (which lives in the upper region).
 *
 * Scenarios, all in one run, each on a fresh Worker with fresh storage:
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
 * | origin_fetches | origin renders the Worker did for the mix, counted by the Worker: every TierCache's `origin_fetch` counter plus the edge's own renders (`lower.isolateCounters.originRenders`: tiers disabled or gone around), from `GET /api/tiers` after the mix (and its purges) settled minus before it. One local workerd isolate serves every request here, so its per-isolate count is the whole count. In no-tier, every read renders once |
 * | read_ms_p50, read_ms_p99 | wall-clock ms per mix read, request to last body byte |
 * | purges | mix writes (each produces one purge) |
 * | purge_ack_ms_p50, purge_ack_ms_p99 | per mix purge: the latest per-tier `ackedAt` in `GET /api/purges/{id}` minus the event's `createdAt` (see purge-tracker.ts for why this, not poll time); null without purges |
 * | purges_per_s | burst writes / (moment the last burst purge was acknowledged by every tier, per `ackedAt` − burst start); the writes' own time is included, as purges come from writes |
 * | lost_purges | purges of any phase (seed, mix, burst) that some tier had not taken `lostTimeoutMs` after their phase: the bench's purge ids whose status is not `acknowledged`, plus every queue sequence past the lowest pointer (`depth` in `GET /api/tiers`) or past the lowest `applied` sequence any tier reports for that queue |
 * | stale_reads_beyond_bound | latest-revision reads that returned a revision older than one whose purge was fully acknowledged (`ackedAt`) before the read started, beyond the bound: 0 for reads served by regional, upper or origin (they must be current as of every acknowledged purge); `maxStaleSeconds` (300) for reads served by lower (a colo's Cache API may serve an entry until max-stale, revalidating it in the background past `refreshSeconds`; purges never reach it, DESIGN "Tiers") |
 *
 * Ratios are fractions rounded to 4 digits, times ms rounded to 2. Progress,
 * failures and context figures (write latency, burst write time, lower reads
 * stale within their bound, the tiers' own counters) go to stderr. Requests
 * that fail are not retried (except POSTs that wrangler's dev proxy lost, see
 * http.ts): they are counted, reported on stderr, and make the command exit 1
 * after every row is printed.
 *
 * @example
 * await benchTiers({ ...DEFAULT_TIERS_OPTIONS, log: console.error }, (row) => console.log(JSON.stringify(row)));
 */
import { percentile } from "../store/sampling.ts";
import { pool, TiersApi, type TiersStatsBody } from "./http.ts";
import { snapshotTree, startTiersWorker, type TopologyVars } from "./local-worker.ts";
import { PurgeTracker, type PurgeOutcome } from "./purge-tracker.ts";
import { burstKey, catalogueKey, newRevision, planOps, ZipfFamily } from "./workload.ts";

export const TIERS_ROW_KEYS = [
  "scenario",
  "reads",
  "hit_ratio_lower",
  "hit_ratio_regional",
  "origin_fetches",
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

interface PageState {
  key: string;
  /** Committed revision ids, oldest first (ids grow over time, so id order is commit order). */
  revisions: number[];
  writing: boolean;
  /** Writes whose purges were acknowledged by every tier: newest revision of the write, and when. */
  acked: Array<{ revision: number; ackedAt: number }>;
}

interface ReadRecord {
  page: PageState;
  latest: boolean;
  tier: string;
  revisionId: number;
  startedAt: number;
  ms: number;
}

interface TrackedPurge {
  id: string;
  outcome: Promise<PurgeOutcome>;
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));
const p = (values: number[], q: number, digits = 2) => (values.length === 0 ? null : round(percentile(values, q), digits));

export async function benchTiers(o: TiersBenchOptions, onRow: (row: TiersRow) => void, scenarios: readonly Scenario[] = SCENARIOS): Promise<void> {
  const tree = snapshotTree();
  const failures: string[] = [];
  try {
    for (const scenario of scenarios) {
      const { row, errors } = await runScenario(tree.config, scenario, o);
      onRow(row);
      failures.push(...errors.map((e) => `${scenario.name}: ${e}`));
    }
  } finally {
    tree.dispose();
  }
  if (failures.length > 0) {
    for (const f of failures.slice(0, 20)) o.log(`bench tiers: ${f}`);
    throw new TiersBenchFailures(`${failures.length} request(s) failed; first: ${failures[0]}`);
  }
}

/** One scenario on a fresh Worker bundled from `config` (a snapshot's wrangler.toml). */
export async function runScenario(config: string, scenario: Scenario, o: TiersBenchOptions): Promise<{ row: TiersRow; errors: string[] }> {
  const log = (msg: string) => o.log(`bench tiers [${scenario.name}]: ${msg}`);
  const worker = await startTiersWorker(config, { enabled: scenario.enabled, purgeDelivery: scenario.purgeDelivery, interRegionLatencyMs: o.latencyMs });
  try {
    return await measure(new TiersApi(worker.url, worker.token), worker.topology, scenario, o, log);
  } finally {
    await worker.dispose();
  }
}

async function measure(api: TiersApi, topology: TopologyVars, scenario: Scenario, o: TiersBenchOptions, log: (msg: string) => void): Promise<{ row: TiersRow; errors: string[] }> {
  const colos = Object.values(topology.regions).flatMap((r) => r.colos);
  const tracker = new PurgeTracker(api, { intervalMs: o.pollIntervalMs, maxInFlight: o.pollConcurrency });
  const errors: string[] = [];
  const fail = (what: string, err: unknown) => errors.push(`${what}: ${(err as Error)?.message ?? err}`);
  const allPurges: TrackedPurge[] = [];
  let nextRevision = 1;
  /** Writes that landed, but whose answer (and purge id) wrangler's dev proxy lost. */
  let untracked = 0;
  const pages: PageState[] = Array.from({ length: o.pages }, (_, i) => ({ key: catalogueKey(i), revisions: [], writing: false, acked: [] }));

  const follow = (page: PageState | null, revision: number, ids: string[]): TrackedPurge[] =>
    ids.map((id) => {
      const outcome = tracker.track(id);
      if (page) void outcome.then((out) => out.ackedAt !== null && page.acked.push({ revision, ackedAt: out.ackedAt }));
      const tracked = { id, outcome };
      allPurges.push(tracked);
      return tracked;
    });

  // 1. Seed.
  const seedStart = performance.now();
  await pool(pages, 8, async (page, i) => {
    const ids = Array.from({ length: o.seedRevisions }, () => nextRevision++);
    const revisions = ids.map((id, j) => newRevision(page.key, id, j === 0 ? null : ids[j - 1]!));
    try {
      const res = await api.append(page.key, revisions, colos[i % colos.length]!);
      if (res.status !== 201) return void fail(`seed ${page.key}`, `HTTP ${res.status} ${res.detail}`);
      if (res.untracked) untracked++;
      page.revisions.push(...ids);
      follow(page, ids.at(-1)!, res.purges);
    } catch (err) {
      fail(`seed ${page.key}`, err);
    }
  });
  await tracker.settle(o.lostTimeoutMs);
  log(`seeded ${o.pages} pages × ${o.seedRevisions} revisions in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

  // 2. Mix.
  const rendersBefore = originRenders(await api.tierStats());
  const plan = planOps({ reads: o.reads, writeEvery: o.writeEvery, pages: o.pages, zipfS: o.zipfS, colos, seed: o.seed });
  const revisionLaw = new ZipfFamily(o.zipfS);
  const reads: ReadRecord[] = [];
  const writeMs: number[] = [];
  const mixPurges: TrackedPurge[] = [];
  let mixWrites = 0;
  const mixStart = performance.now();
  await pool(plan, o.concurrency, async (op) => {
    if (op.kind === "write") {
      const page = Array.from({ length: o.pages }, (_, k) => pages[(op.page + k) % o.pages]!).find((pg) => !pg.writing);
      if (!page) return;
      page.writing = true;
      const id = nextRevision++;
      try {
        const res = await api.append(page.key, [newRevision(page.key, id, page.revisions.at(-1) ?? null)], op.colo);
        if (res.status !== 201) return void fail(`write ${page.key}/${id}`, `HTTP ${res.status} ${res.detail}`);
        page.revisions.push(id);
        if (res.untracked) untracked++;
        mixWrites++;
        writeMs.push(res.ms);
        mixPurges.push(...follow(page, id, res.purges));
      } catch (err) {
        fail(`write ${page.key}/${id}`, err);
      } finally {
        page.writing = false;
      }
      return;
    }
    const page = pages[op.page]!;
    const revision = page.revisions[page.revisions.length - 1 - revisionLaw.rank(page.revisions.length, op.revisionU)]!;
    const path = op.latest ? `/page/${page.key}` : `/page/${page.key}/${revision}`;
    try {
      const r = await api.read(path, op.colo);
      if (r.status !== 200 || r.tier === null || r.revisionId === null) return void fail(`read ${path} from ${op.colo}`, `HTTP ${r.status}, tier ${r.tier}, revision ${r.revisionId}`);
      if (!op.latest && r.revisionId !== revision) return void fail(`read ${path} from ${op.colo}`, `answered revision ${r.revisionId}`);
      reads.push({ page, latest: op.latest, tier: r.tier, revisionId: r.revisionId, startedAt: r.startedAt, ms: r.ms });
    } catch (err) {
      fail(`read ${path} from ${op.colo}`, err);
    }
  });
  const mixSeconds = (performance.now() - mixStart) / 1000;
  log(`mix: ${reads.length} reads and ${mixWrites} writes in ${mixSeconds.toFixed(1)} s (write p50 ${p(writeMs, 50)} ms; ${tracker.polls} purge status polls so far)`);
  await tracker.settle(o.lostTimeoutMs);
  const mixRenders = originRenders(await api.tierStats()) - rendersBefore;

  // 3. Burst: distinct pages, as fast as the writes go; done when every queue's last burst purge is acknowledged.
  const burstIds: string[] = [];
  let burstLanded = 0;
  const burstStart = Date.now();
  await pool(Array.from({ length: o.burstPurges }, (_, i) => i), o.burstConcurrency, async (i) => {
    const key = burstKey(i);
    try {
      // Small revisions: the burst is about the purges, so the write path should cost as little as it can.
      const res = await api.append(key, [newRevision(key, nextRevision++, null, 64)], colos[i % colos.length]!);
      if (res.status !== 201) return void fail(`burst write ${key}`, `HTTP ${res.status} ${res.detail}`);
      if (res.untracked) untracked++;
      burstLanded++;
      burstIds.push(...res.purges);
    } catch (err) {
      fail(`burst write ${key}`, err);
    }
  });
  const burstWritten = Date.now();
  const lastPerQueue = new Map<string, { seq: number; id: string }>();
  for (const id of burstIds) {
    const [queue, seq] = splitId(id);
    if ((lastPerQueue.get(queue)?.seq ?? 0) < seq) lastPerQueue.set(queue, { seq, id });
  }
  const lastOutcomes = [...lastPerQueue.values()].map(({ id }) => tracker.track(id));
  await tracker.settle(o.lostTimeoutMs);
  const burstOutcomes = await Promise.all(lastOutcomes);
  const burstEnd = Math.max(burstWritten, ...burstOutcomes.map((b) => b.ackedAt ?? Date.now()));
  const purgesPerSecond = burstLanded / Math.max(0.001, (burstEnd - burstStart) / 1000);
  log(`burst: ${burstLanded} purges over ${lastPerQueue.size} queues; writes took ${burstWritten - burstStart} ms, all acknowledged ${burstEnd - burstStart} ms after the start`);

  // 4. Audit every purge: acknowledged, and every tier's applied sequence agrees.
  const { lost, stats } = await auditPurges(api, [...allPurges.map((t) => t.id), ...burstIds], log);
  const counter = (name: string) => stats.tiers.reduce((n, t) => n + (t.counters[name] ?? 0), 0);
  if (scenario.enabled) log(`tier counters: ${counter("origin_fetch")} origin renders by the upper tier, ${counter("coalesced")} coalesced misses, ${counter("purge")} purges applied`);
  const mixOutcomes = await Promise.all(mixPurges.map((t) => t.outcome));
  const ackMs = mixOutcomes.flatMap((out) => (out.ackMs === null ? [] : [out.ackMs]));

  // Staleness of latest reads against the acknowledged writes.
  const maxStaleMs = topology.maxStaleSeconds * 1000;
  let staleBeyond = 0;
  let staleWithin = 0;
  for (const r of reads) {
    if (!r.latest) continue;
    const bound = r.tier === "lower" ? maxStaleMs : 0;
    const mustHave = Math.max(0, ...r.page.acked.filter((a) => a.ackedAt + bound < r.startedAt).map((a) => a.revision));
    const acknowledged = Math.max(0, ...r.page.acked.filter((a) => a.ackedAt < r.startedAt).map((a) => a.revision));
    if (r.revisionId < mustHave) staleBeyond++;
    else if (r.revisionId < acknowledged) staleWithin++;
  }

  if (api.proxyRetries > 0) log(`${api.proxyRetries} POST(s) lost by wrangler's dev proxy were retried; ${untracked} of them had landed (purge id unknown, audited by sequence)`);
  const served = (tier: string) => reads.filter((r) => r.tier === tier).length;
  const lower = served("lower");
  log(`mix: ${mixRenders} origin renders counted by the Worker; ${served("origin")} reads answered with x-palimpsest-tier: origin`);
  const reachedRegional = reads.length - lower;
  log(`latest reads older than an acknowledged write but within their bound (lower tier, max-stale ${topology.maxStaleSeconds} s): ${staleWithin}`);
  const row: TiersRow = {
    scenario: scenario.name,
    reads: reads.length,
    hit_ratio_lower: reads.length === 0 ? 0 : round(lower / reads.length, 4),
    hit_ratio_regional: reachedRegional === 0 ? 0 : round(served("regional") / reachedRegional, 4),
    origin_fetches: mixRenders,
    read_ms_p50: p(reads.map((r) => r.ms), 50) ?? 0,
    read_ms_p99: p(reads.map((r) => r.ms), 99) ?? 0,
    purges: mixWrites,
    purge_ack_ms_p50: p(ackMs, 50),
    purge_ack_ms_p99: p(ackMs, 99),
    purges_per_s: round(purgesPerSecond, 1),
    lost_purges: lost,
    stale_reads_beyond_bound: staleBeyond,
  };
  return { row, errors };
}

/**
 * Origin renders so far, as the Worker counts them: every TierCache's
 * `origin_fetch` plus the edge's own renders (per isolate; the bench's one
 * local workerd has one).
 */
function originRenders(stats: TiersStatsBody): number {
  const edge = stats.lower.isolateCounters.originRenders;
  if (typeof edge !== "number") throw new Error("GET /api/tiers reports no lower.isolateCounters.originRenders");
  return stats.tiers.reduce((n, t) => n + (t.counters.origin_fetch ?? 0), 0) + edge;
}

function splitId(id: string): [string, number] {
  const at = id.lastIndexOf(":");
  return [id.slice(0, at), Number(id.slice(at + 1))];
}

/**
 * Purges some tier has not taken: every sequence of every queue that a
 * tier's pointer has not acknowledged (the queue's `depth`) or that a tier
 * has not applied (its own `applied` record), from `GET /api/tiers`, plus
 * any purge the bench was given whose status is not acknowledged. This
 * covers purges whose id the bench never learnt, too.
 */
async function auditPurges(api: TiersApi, tracked: string[], log: (msg: string) => void): Promise<{ lost: number; stats: TiersStatsBody }> {
  const lost = new Set<string>();
  await pool(tracked, 8, async (id) => {
    const status = await api.purgeStatus(id).catch(() => null);
    if (!status?.acknowledged) lost.add(id);
  });
  const stats = await api.tierStats();
  for (const q of stats.queues) {
    if (q.lastSeq === 0) continue;
    const applied = Math.min(...stats.tiers.map((t) => t.applied[q.queue]?.seq ?? 0));
    const acknowledged = q.lastSeq - q.depth;
    for (let seq = Math.min(applied, acknowledged) + 1; seq <= q.lastSeq; seq++) lost.add(`${q.queue}:${seq}`);
    if (applied < acknowledged) log(`${q.queue}: acknowledged up to ${acknowledged}, but some tier applied only up to ${applied}`);
  }
  if (lost.size > 0) log(`purges not taken by every tier: ${[...lost].slice(0, 10).join(", ")}${lost.size > 10 ? ", …" : ""}`);
  return { lost: lost.size, stats };
}
