/**
 * `bench purge`: what fanout delivery buys operators' purges, measured on the
 * project's own Worker running locally in workerd (see src/tools/local/local-worker.ts),
 * driven by operator purges alone (`POST /api/purges`). Every region and tier
 * of wrangler.toml's topology (9 regions, 37 colos, 27 regional and 3 upper
 * TierCache instances: 67 targets per purge) runs in that one workerd, and the
 * Worker sleeps `interRegionLatencyMs` (40 ms here) on every cross-region hop:
 * queue → remote tier or remote Fanout, Fanout → owning queue.
 *
 * Two Workers in one run, started from one bundle, each with fresh storage:
 * `purgeDelivery = "fanout"` (a queue delivers to its own region's tiers and
 * to one Fanout per other region) and `"direct"` (the queue delivers to all
 * 67 targets itself), the baseline. Each runs the same phases:
 *
 * 1. catalogue (not measured): `pages` pages of two revisions; their write
 *    purges complete before anything is measured.
 * 2. for each phase, `lone`, `healthy` then `tier-killed`, and each kind in turn
 *    (files, tags, prefixes, hosts, everything; `kinds` picks some):
 *    - warm (not measured): every page's latest and first revision read from
 *      every colo, so every lower tier, the regional tiers and the upper tier
 *      hold entries for the purge to remove;
 *    - in `lone`: `purgesPerKind` purges of that kind one at a time, each sent
 *      once the one before is complete: the time to completion an operator
 *      sees when nothing else is purging (the URL purge target is this p50);
 *    - otherwise a burst (measured, no writes): `purgesPerKind` purges of that kind,
 *      `concurrency` in flight, each from the next colo (every region's queues
 *      take some) under the next bench token. `files` names a page's two warmed
 *      URLs, `tags` its `page:` tag, `prefixes` `host/page/{key}`, `hosts` the
 *      Worker's host, `everything` is `purge_everything`. In `tier-killed` the
 *      TierCache `killTier` is cut off (dev-only route, workers/routes/admin/dev-fault-routes.ts)
 *      once a quarter of the burst is sent and restored `killMs` later.
 *    - wait: until every purge of the burst is complete, or `lostTimeoutMs`
 *      after the last was sent and the tier restored.
 *
 * Rate limits: the product limits each token to 60 purges a minute
 * (`PURGE_RATE`); the bench does not weaken that. It starts each Worker with
 * as many named purge-scope tokens (`bench-purge-NN`) as it needs for no token
 * to send more than 50 purges in the Worker's life, sends each purge under the
 * next one, and reports any 429 (`rate_limited`, expected 0).
 *
 * Rows (`--json`: one object per line):
 *
 * | row | fields |
 * |---|---|
 * | `setup` | `delivery_modes`, `regions`, `colos`, `targets_per_purge`, `latency_ms`, `pages`, `purges_per_kind`, `concurrency`, `purge_tokens` (per Worker), `max_purges_per_token` (sent under the busiest token), `rate_limit`, `kill_tier`, `kill_ms`, `lost_timeout_ms` |
 * | `purges` | one per delivery × phase × kind: `delivery`, `phase`, `kind`, `purges` (accepted), `completed`, `lost` (not complete by the timeout), `purges_per_s` (completed / (last `completedAt` − moment the first was sent); null in `lone`, which measures latency only), `ttc_ms_p50`, `ttc_ms_p99`, `ttc_ms_max` (time to completion: `completedAt − createdAt` from `GET /api/purges/{id}`, the queue's own clock), `send_ms` (sending the burst, and in `tier-killed` waiting for the restore; in `lone` the whole phase, warm reads and waits included), `rate_limited`, `killed_tier`, `killed_ms` (cut off to restored), `sent_while_killed` (purges logged while it was cut off), `completed_while_killed` (of those, complete before the restore was asked: 0, as the killed tier cannot acknowledge) |
 * | `ratio` | one per phase × kind: `purges_per_s_ratio` and `ttc_ms_p99_ratio`, fanout / direct |
 * | `target` | one per target: `target`, `phase`, `kind`, `want`, `got`, `met` |
 *
 * Times are ms rounded to 1 digit, ratios to 3. All regions share one workerd
 * process, so compare the two delivery modes of one run, not runs on
 * different machines. Failed requests are counted, listed on stderr, and make
 * the command exit 1 after every row is printed.
 *
 * @example
 * await benchPurge({ ...DEFAULT_PURGE_OPTIONS, log: console.error }, (row) => console.log(JSON.stringify(row)));
 */
import { ArchiveClient } from "../../local/archive-client.ts";
import { startLocalWorker } from "../../local/local-worker.ts";
import { bundleWorker, type WorkerBundle } from "../../local/worker-bundle.ts";
import { round, roundedPercentile } from "../harness/index.ts";
import { benchVars, readTopology, workerLogLevel, type TopologyVars } from "../worker-config.ts";
import { auditPurges } from "../tiers/audit.ts";
import { PurgeRun, type BurstResult } from "./phases.ts";
import { benchTokens, PURGE_KINDS, PURGES_PER_TOKEN, type PurgeKind } from "./workload.ts";

export type Delivery = "fanout" | "direct";
export type Phase = "lone" | "healthy" | "tier-killed";
const DELIVERIES: readonly Delivery[] = ["fanout", "direct"];
const PHASES: readonly Phase[] = ["lone", "healthy", "tier-killed"];

export interface PurgeBenchOptions {
  /** The kinds measured, in this order (default all five). */
  kinds: PurgeKind[];
  pages: number;
  purgesPerKind: number;
  concurrency: number;
  latencyMs: number;
  /** The TierCache cut off in `tier-killed` (`region/member`); default the first regional tier outside the upper region. */
  killTier?: string;
  killMs: number;
  lostTimeoutMs: number;
  log: (msg: string) => void;
}

/** About six minutes on a two-core machine (every purge costs the one workerd thread ~0.25 s of CPU: see the README). */
export const DEFAULT_PURGE_OPTIONS: Omit<PurgeBenchOptions, "log"> = {
  kinds: [...PURGE_KINDS],
  pages: 4,
  purgesPerKind: 12,
  concurrency: 8,
  latencyMs: 40,
  killMs: 3000,
  lostTimeoutMs: 60_000,
};

/** For tests and smoke runs: every phase and kind runs, the numbers are noisy. */
export const QUICK_PURGE_OPTIONS: Omit<PurgeBenchOptions, "log"> = {
  ...DEFAULT_PURGE_OPTIONS,
  pages: 3,
  purgesPerKind: 6,
  latencyMs: 5,
  killMs: 1000,
  lostTimeoutMs: 30_000,
};

export const PURGE_ROW_KEYS = [
  "row",
  "delivery",
  "phase",
  "kind",
  "purges",
  "completed",
  "lost",
  "purges_per_s",
  "ttc_ms_p50",
  "ttc_ms_p99",
  "ttc_ms_max",
  "send_ms",
  "rate_limited",
  "killed_tier",
  "killed_ms",
  "sent_while_killed",
  "completed_while_killed",
] as const;

export interface PurgeRow {
  row: "purges";
  delivery: Delivery;
  phase: Phase;
  kind: PurgeKind;
  purges: number;
  completed: number;
  lost: number;
  purges_per_s: number | null;
  ttc_ms_p50: number | null;
  ttc_ms_p99: number | null;
  ttc_ms_max: number | null;
  send_ms: number;
  rate_limited: number;
  killed_tier: string | null;
  killed_ms: number | null;
  /** Purges the queue logged while the tier was cut off; null without a kill. */
  sent_while_killed: number | null;
  /** Of those, how many reported complete before the restore was asked: the killed tier cannot acknowledge, so 0. */
  completed_while_killed: number | null;
}

export interface SetupRow {
  row: "setup";
  delivery_modes: Delivery[];
  regions: number;
  colos: number;
  targets_per_purge: number;
  latency_ms: number;
  pages: number;
  purges_per_kind: number;
  concurrency: number;
  purge_tokens: number;
  max_purges_per_token: number;
  rate_limit: string;
  kill_tier: string;
  kill_ms: number;
  lost_timeout_ms: number;
}

export interface RatioRow {
  row: "ratio";
  phase: Phase;
  kind: PurgeKind;
  purges_per_s_ratio: number | null;
  ttc_ms_p99_ratio: number | null;
}

export interface TargetRow {
  row: "target";
  target: string;
  phase: Phase | "all";
  kind: PurgeKind | "all";
  want: string;
  got: number | null;
  met: boolean;
}

export type PurgeBenchRow = SetupRow | PurgeRow | RatioRow | TargetRow;

/** Thrown after every row is printed when some requests failed. */
export class PurgeBenchFailures extends Error {}

const PURGES_PER_WORKER = (o: Omit<PurgeBenchOptions, "log">) => o.kinds.length * PHASES.length * o.purgesPerKind;

/** The first regional TierCache of the first region that is not the upper tier's. */
function defaultKillTier(topology: TopologyVars): string {
  const [region, r] = Object.entries(topology.regions).find(([name]) => name !== topology.upperRegion)!;
  return `${region}/${Object.keys(r.tiers)[0]}`;
}

export async function benchPurge(o: PurgeBenchOptions, onRow: (row: PurgeBenchRow) => void): Promise<void> {
  const [bundle, base] = await Promise.all([bundleWorker(), readTopology()]);
  const topology: TopologyVars = { ...base, enabled: true, interRegionLatencyMs: o.latencyMs };
  const killTier = o.killTier ?? defaultKillTier(topology);
  const tokenCount = Math.ceil(PURGES_PER_WORKER(o) / PURGES_PER_TOKEN);
  const rows: PurgeRow[] = [];
  const failures: string[] = [];
  const setup: SetupRow = {
    row: "setup",
    delivery_modes: [...DELIVERIES],
    regions: Object.keys(topology.regions).length,
    colos: Object.values(topology.regions).reduce((n, r) => n + r.colos.length, 0),
    targets_per_purge: 0,
    latency_ms: o.latencyMs,
    pages: o.pages,
    purges_per_kind: o.purgesPerKind,
    concurrency: o.concurrency,
    purge_tokens: tokenCount,
    max_purges_per_token: 0,
    rate_limit: "PURGE_RATE: 60 purges per 60 s per token (wrangler.toml), unchanged",
    kill_tier: killTier,
    kill_ms: o.killMs,
    lost_timeout_ms: o.lostTimeoutMs,
  };
  try {
    for (const delivery of DELIVERIES) {
      const { errors, targets, maxPerToken } = await runDelivery(
        bundle,
        { ...topology, purgeDelivery: delivery },
        delivery,
        killTier,
        tokenCount,
        o,
        (row) => rows.push(row),
      );
      failures.push(...errors.map((e) => `${delivery}: ${e}`));
      setup.targets_per_purge = Math.max(setup.targets_per_purge, targets);
      setup.max_purges_per_token = Math.max(setup.max_purges_per_token, maxPerToken);
    }
  } finally {
    bundle.dispose();
  }
  onRow(setup);
  rows.forEach(onRow);
  const ratios = ratioRows(rows, o.kinds);
  ratios.forEach(onRow);
  targetRows(rows, ratios, o.latencyMs).forEach(onRow);
  if (failures.length > 0) {
    for (const f of failures.slice(0, 20)) o.log(`bench purge: ${f}`);
    throw new PurgeBenchFailures(`${failures.length} request(s) failed; first: ${failures[0]}`);
  }
}

/** One delivery mode on a fresh Worker: catalogue, then every phase and kind. */
async function runDelivery(
  bundle: WorkerBundle,
  topology: TopologyVars,
  delivery: Delivery,
  killTier: string,
  tokenCount: number,
  o: PurgeBenchOptions,
  onRow: (row: PurgeRow) => void,
): Promise<{ errors: string[]; targets: number; maxPerToken: number }> {
  const log = (msg: string) => o.log(`bench purge [${delivery}]: ${msg}`);
  const tokens = benchTokens(tokenCount);
  const worker = await startLocalWorker({
    bundle,
    vars: benchVars(topology),
    extraTokens: tokens,
    logLevel: workerLogLevel(),
    memoryState: true,
  });
  let targets = 0;
  try {
    const client = new ArchiveClient({ url: worker.url, token: worker.token, attempts: 1 });
    const run = new PurgeRun(client, tokens, new URL(worker.url), topology, o, log);
    await run.writeCatalogue();
    for (const phase of PHASES) {
      for (const kind of o.kinds) {
        await run.warm();
        const burst =
          phase === "lone"
            ? await run.oneByOne(kind)
            : await run.burst(kind, phase === "tier-killed" ? { tier: killTier, downMs: o.killMs } : null);
        targets = Math.max(targets, burst.tiers);
        const row = purgeRow(delivery, phase, burst);
        log(
          `${phase} ${kind}: ${row.completed}/${row.purges} complete, ${row.purges_per_s} purges/s, time to completion p50 ${row.ttc_ms_p50} ms, p99 ${row.ttc_ms_p99} ms`,
        );
        onRow(row);
      }
    }
    // Every queue's pointers and every tier's applied sequence agree that nothing is left behind.
    const { lost } = await auditPurges(client, [], log);
    if (lost > 0) run.fail("audit", `${lost} queue sequence(s) not taken by every tier (GET /api/tiers)`);
    return { errors: run.errors, targets, maxPerToken: Math.max(...run.sentPerToken) };
  } finally {
    await worker.stop();
  }
}

function purgeRow(delivery: Delivery, phase: Phase, b: BurstResult): PurgeRow {
  const done = b.outcomes.filter((x) => x.completedAt !== null);
  const ttc = done.map((x) => x.completedAt! - x.createdAt);
  const lastDone = Math.max(...done.map((x) => x.completedAt!));
  const whileKilled = b.fault
    ? b.outcomes.filter((x) => x.createdAt >= b.fault!.downAt && x.createdAt < b.fault!.restoreAt)
    : null;
  return {
    row: "purges",
    delivery,
    phase,
    kind: b.kind,
    purges: b.outcomes.length,
    completed: done.length,
    lost: b.outcomes.length - done.length,
    purges_per_s:
      done.length === 0 || phase === "lone"
        ? null
        : round(done.length / Math.max(0.001, (lastDone - b.startedAt) / 1000), 1),
    ttc_ms_p50: roundedPercentile(ttc, 50, 1),
    ttc_ms_p99: roundedPercentile(ttc, 99, 1),
    ttc_ms_max: roundedPercentile(ttc, 100, 1),
    send_ms: b.sentAt - b.startedAt,
    rate_limited: b.rateLimited,
    killed_tier: b.fault?.tier ?? null,
    killed_ms: b.fault ? b.fault.upAt - b.fault.downAt : null,
    sent_while_killed: whileKilled ? whileKilled.length : null,
    completed_while_killed: whileKilled
      ? whileKilled.filter((x) => x.completedAt !== null && x.completedAt < b.fault!.restoreAt).length
      : null,
  };
}

const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a == null || b == null || b === 0 ? null : round(a / b, 3);

function ratioRows(rows: readonly PurgeRow[], kinds: readonly PurgeKind[]): RatioRow[] {
  const find = (d: Delivery, p: Phase, k: PurgeKind) =>
    rows.find((r) => r.delivery === d && r.phase === p && r.kind === k);
  return PHASES.flatMap((phase) =>
    kinds.map((kind): RatioRow => {
      const [f, d] = [find("fanout", phase, kind), find("direct", phase, kind)];
      return {
        row: "ratio",
        phase,
        kind,
        purges_per_s_ratio: ratio(f?.purges_per_s, d?.purges_per_s),
        ttc_ms_p99_ratio: ratio(f?.ttc_ms_p99, d?.ttc_ms_p99),
      };
    }),
  );
}

/** The targets: fanout ≥ 2 × direct's purges/s and ≤ 0.6 × its p99 (healthy burst, per kind), 0 lost anywhere, URL purge p50 ≤ 150 ms + link latency (one purge at a time). */
function targetRows(rows: readonly PurgeRow[], ratios: readonly RatioRow[], latencyMs: number): TargetRow[] {
  const healthy = ratios.filter((r) => r.phase === "healthy");
  const lost = rows.reduce((n, r) => n + r.lost, 0);
  const urlP50 =
    rows.find((r) => r.delivery === "fanout" && r.phase === "lone" && r.kind === "files")?.ttc_ms_p50 ?? null;
  const urlBound = 150 + latencyMs;
  return [
    ...healthy.map((r): TargetRow => ({
      row: "target",
      target: "fanout/direct purges/s",
      phase: "healthy",
      kind: r.kind,
      want: ">= 2",
      got: r.purges_per_s_ratio,
      met: (r.purges_per_s_ratio ?? 0) >= 2,
    })),
    ...healthy.map((r): TargetRow => ({
      row: "target",
      target: "fanout/direct p99 time to completion",
      phase: "healthy",
      kind: r.kind,
      want: "<= 0.6",
      got: r.ttc_ms_p99_ratio,
      met: r.ttc_ms_p99_ratio !== null && r.ttc_ms_p99_ratio <= 0.6,
    })),
    {
      row: "target",
      target: "lost purges (both modes, every phase)",
      phase: "all",
      kind: "all",
      want: "0",
      got: lost,
      met: lost === 0,
    },
    ...(rows.some((r) => r.kind === "files")
      ? [
          {
            row: "target",
            target: "fanout URL purge p50 time to completion, ms",
            phase: "lone",
            kind: "files",
            want: `<= ${urlBound} (150 + ${latencyMs} link latency)`,
            got: urlP50,
            met: urlP50 !== null && urlP50 <= urlBound,
          } as const,
        ]
      : []),
  ];
}
