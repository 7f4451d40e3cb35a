/**
 * The phases of one tiers-bench scenario (see run.ts for what each
 * measures): seed the catalogue, run the read/write mix, write the purge
 * burst. Each leaves its purges followed by the scenario's tracker.
 *
 * @example
 * await seed(run);
 * const mix = await runMix(run);
 * const burst = await runBurst(run);
 */
import { runLimited } from "../../../lib/run-limited.ts";
import { roundedPercentile } from "../harness/index.ts";
import { originRenders, originRendersByKind } from "./audit.ts";
import type { PageState, ScenarioRun, TrackedPurge } from "./scenario.ts";
import { burstKey, newRevision, planOps, ZipfFamily, type Op } from "./workload.ts";
import { lastPerQueue } from "../purge-ids.ts";

export interface ReadRecord {
  page: PageState;
  latest: boolean;
  tier: string;
  revisionId: number;
  startedAt: number;
  ms: number;
}

export interface MixResult {
  reads: ReadRecord[];
  writes: number;
  purges: TrackedPurge[];
  /** Origin renders the Worker counted during the mix. */
  renders: number;
  /** Of those, the TierCaches' by kind of answer (latest, revision, mementos, ...). */
  rendersByKind: Record<string, number>;
}

/** `pages` pages of `seedRevisions` revisions, one batch each, from colos in turn; done when their purges are acknowledged. */
export async function seed(run: ScenarioRun): Promise<void> {
  const { o } = run;
  const started = performance.now();
  await runLimited(run.pages, 8, async (page, i) => {
    const ids = Array.from({ length: o.seedRevisions }, () => run.nextRevision++);
    const revisions = ids.map((id, j) => newRevision(page.key, id, j === 0 ? null : ids[j - 1]!));
    const res = await run.write(`seed ${page.key}`, page.key, revisions, run.colos[i % run.colos.length]!);
    if (!res) return;
    page.revisions.push(...ids);
    run.follow(page, ids.at(-1)!, res.purges);
  });
  await run.tracker.settle(o.lostTimeoutMs);
  run.log(
    `seeded ${o.pages} pages × ${o.seedRevisions} revisions in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** One write of the mix: to the chosen page, or the next one without a write in flight, so parents always match. */
async function mixWrite(
  run: ScenarioRun,
  op: Extract<Op, { kind: "write" }>,
  mix: MixResult,
  writeMs: number[],
): Promise<void> {
  const page = Array.from({ length: run.o.pages }, (_, k) => run.pages[(op.page + k) % run.o.pages]!).find(
    (pg) => !pg.writing,
  );
  if (!page) return;
  page.writing = true;
  const id = run.nextRevision++;
  const t0 = performance.now();
  const res = await run.write(
    `write ${page.key}/${id}`,
    page.key,
    [newRevision(page.key, id, page.revisions.at(-1) ?? null)],
    op.colo,
  );
  page.writing = false;
  if (!res) return;
  writeMs.push(performance.now() - t0);
  page.revisions.push(id);
  mix.writes++;
  mix.purges.push(...run.follow(page, id, res.purges));
}

async function mixRead(
  run: ScenarioRun,
  op: Extract<Op, { kind: "read" }>,
  revisionLaw: ZipfFamily,
  mix: MixResult,
): Promise<void> {
  const page = run.pages[op.page]!;
  const revision = page.revisions[page.revisions.length - 1 - revisionLaw.rank(page.revisions.length, op.revisionU)]!;
  const path = op.latest ? `/page/${page.key}` : `/page/${page.key}/${revision}`;
  const what = `read ${path} from ${op.colo}`;
  try {
    const r = await run.client.read(path, { colo: op.colo });
    const tier = r.headers.get("x-palimpsest-tier");
    const rev = r.headers.get("x-revision-id");
    const revisionId = rev === null ? null : Number(rev);
    if (r.status !== 200 || tier === null || revisionId === null)
      return run.fail(what, `HTTP ${r.status}, tier ${tier}, revision ${revisionId}`);
    if (!op.latest && revisionId !== revision) return run.fail(what, `answered revision ${revisionId}`);
    mix.reads.push({ page, latest: op.latest, tier, revisionId, startedAt: r.startedAt, ms: r.ms });
  } catch (err) {
    run.fail(what, err);
  }
}

/** `reads` Zipf reads with writes interleaved, `concurrency` in flight; done when the mix's purges are acknowledged. */
export async function runMix(run: ScenarioRun): Promise<MixResult> {
  const { o } = run;
  const statsBefore = await run.client.tierStats();
  const plan = planOps({
    reads: o.reads,
    writeEvery: o.writeEvery,
    pages: o.pages,
    zipfS: o.zipfS,
    colos: run.colos,
    seed: o.seed,
  });
  const revisionLaw = new ZipfFamily(o.zipfS);
  const mix: MixResult = { reads: [], writes: 0, purges: [], renders: 0, rendersByKind: {} };
  const writeMs: number[] = [];
  const started = performance.now();
  await runLimited(plan, o.concurrency, (op) =>
    op.kind === "write" ? mixWrite(run, op, mix, writeMs) : mixRead(run, op, revisionLaw, mix),
  );
  const seconds = (performance.now() - started) / 1000;
  run.log(
    `mix: ${mix.reads.length} reads and ${mix.writes} writes in ${seconds.toFixed(1)} s (write p50 ${roundedPercentile(writeMs, 50)} ms; ${run.tracker.polls} purge status polls so far)`,
  );
  await run.tracker.settle(o.lostTimeoutMs);
  const statsAfter = await run.client.tierStats();
  mix.renders = originRenders(statsAfter) - originRenders(statsBefore);
  const kindsBefore = originRendersByKind(statsBefore);
  for (const [kind, n] of Object.entries(originRendersByKind(statsAfter)))
    if (n > (kindsBefore[kind] ?? 0)) mix.rendersByKind[kind] = n - (kindsBefore[kind] ?? 0);
  return mix;
}

/**
 * `burstPurges` small writes to distinct new pages, as fast as the writes go;
 * returns the purge ids and purges per second until every queue's last burst
 * purge was acknowledged.
 */
export async function runBurst(run: ScenarioRun): Promise<{ ids: string[]; purgesPerSecond: number }> {
  const { o } = run;
  const ids: string[] = [];
  let landed = 0;
  const start = Date.now();
  await runLimited(
    Array.from({ length: o.burstPurges }, (_, i) => i),
    o.burstConcurrency,
    async (i) => {
      const key = burstKey(i);
      // Small revisions: the burst is about the purges, so the write path should cost as little as it can.
      const res = await run.write(
        `burst write ${key}`,
        key,
        [newRevision(key, run.nextRevision++, null, 64)],
        run.colos[i % run.colos.length]!,
      );
      if (!res) return;
      landed++;
      ids.push(...res.purges);
    },
  );
  const written = Date.now();
  const lasts = lastPerQueue(ids);
  const outcomes = lasts.map((id) => run.tracker.track(id));
  await run.tracker.settle(o.lostTimeoutMs);
  const end = Math.max(written, ...(await Promise.all(outcomes)).map((b) => b.ackedAt ?? Date.now()));
  run.log(
    `burst: ${landed} purges over ${lasts.length} queues; writes took ${written - start} ms, all acknowledged ${end - start} ms after the start`,
  );
  return { ids, purgesPerSecond: landed / Math.max(0.001, (end - start) / 1000) };
}
