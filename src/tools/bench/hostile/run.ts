/**
 * `bench hostile`: what an anonymous client (and, for the refused writes, a
 * write token) can make the archive spend, measured on the project's own
 * Worker in a local workerd (tiers on, the committed topology, development
 * mode so the colo header works). Each request's cost is workerd's CPU time
 * across it (per-thread schedstat, harness/process-cpu.ts); memory is
 * workerd's peak RSS: so a change to a bound (compare's work budget, a
 * tier's byte budget, a write body's limits) can be compared before and after.
 *
 * The baseline, in the same run and measured the same way: a plain read of a
 * small revision already in the reader's colo (`baseline.cached_read`). Every
 * CPU row gives its ratio to it.
 *
 * Rows (one JSON line each, `row: "measure"`): name, unit (`cpu_ms`,
 * `bytes`), value, baseline, baseline_name, ratio (value / baseline),
 * samples (requests behind value, their median), and what a user would see
 * of the last answer: status, content_encoding (null for identity), served_by
 * (`x-palimpsest-tier`), body_bytes, content_length, content_range.
 *
 * Locally, miniflare emulates Cloudflare's front line: an identity answer of
 * a compressible type to a client offering br or gzip is compressed by
 * workerd on its way out, in the process measured here. In production that
 * is Cloudflare's work, not the Worker's CPU. So `br.big.full` counts it
 * when the Worker answers identity (the answer then has no Content-Length),
 * and `br.big.identity` is the same body without it.
 *
 * | name | what |
 * |---|---|
 * | baseline.cached_read | GET of a 2 KB revision from a colo that has it |
 * | compare.first | the issue's pair (500 lines of 3,900 characters of random words, twice): the first request for a pair, median over two pairs |
 * | compare.repeat | the same pair asked again |
 * | dcb.predecessor.first / .repeat | a revision asked with `Available-Dictionary` of the one before it (`dcb, br, gzip`) |
 * | dcb.outside_window.first / .repeat | the same revision with an old revision's hash, outside `wire.dcbPredecessors`: first requests over three old revisions, then repeats |
 * | br.big.identity / br.big.full / br.big.range | a revision of `tiers.maxEntryBytes` + 64 KiB asked with `identity`, then with `br, gzip`, whole and as an 11-byte Range |
 * | tiers.max_stored_bytes / tiers.total_stored_bytes | after the walk: the fullest tier's entries as `GET /api/tiers` counts them, and all tiers' (null where the archive does not report it); baseline: a tier's budget (`budgetBytes`), and all tiers' |
 * | tiers.max_disk_bytes / tiers.total_disk_bytes | the same from the TierCache SQLite files on disk (database, WAL and shared memory) |
 * | write.objects.cpu / write.nested.cpu | a write token's POST of the largest body the API reads, `{"revisions":[{},{},…]}` or `{"revisions":[[[…]]]}` |
 * | write.objects.peak_rss / write.nested.peak_rss | workerd's peak RSS while that request ran (VmHWM, reset before it); baseline: its RSS before |
 * | export.anonymous.first | an anonymous `GET /page/{title}/export` of the largest page here (the first revisions of the corpus's whatwg-html-2006, ./corpus-history.ts), `identity`: the first request for each of three queries (`?limit=` 1000, 999, 998: the same revisions, three answers) |
 * | export.anonymous.repeat | the first of those asked again |
 * | export.anonymous.not_modified | the same with `If-None-Match` naming the ETag it was answered with |
 * | read.alone | wall time (ms, unit `ms`), p50 of the baseline read sent one after another, nothing else running; baseline of the next two |
 * | read.during_reads | the same reads while 8 clients (each its own address) read that revision again and again, one at a time: the most any 8 busy clients cost a read here, as workerd runs the Worker on one thread |
 * | read.during_exports | the same reads while 8 clients (each its own `CF-Connecting-IP`) each ask the page's export again and again, one at a time |
 * | read.during_uncached_exports | the same, each export asking another `?limit=`, so none can be answered from a tier |
 *
 * Each `read.during_*` row is followed by a `load` row: how many requests the 8 clients sent while the
 * reads ran (`exports`), their statuses and the bytes they received.
 *
 * The walk (`walk` row): `--walk-reads` reads of old revisions of a
 * `--walk-revisions` history, each from a colo of a random region, asking
 * `dcb, br, gzip` with the hash of another revision picked at random (as a
 * hostile reader, with the history's published hashes, would), counting the
 * Content-Encodings sent. Then a `summary` row: the worst CPU an anonymous
 * request cost and its ratio, the fullest tier against its budget, the
 * highest peak RSS, and whether workerd restarted.
 *
 * @example
 * await benchHostile({ log: console.error, onRow: (r) => console.log(JSON.stringify(r)) });
 */
import { createHash } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ArchiveClient, retryLostByDevProxy } from "../../local/archive-client.ts";
import { startLocalWorker, type LocalWorker } from "../../local/local-worker.ts";
import { bundleWorker } from "../../local/worker-bundle.ts";
import { LIMITS } from "../../../limits.ts";
import type { NewRevision } from "../../../page/types.ts";
import { mulberry32 } from "../../../lib/mulberry32.ts";
import { sleep } from "../../../lib/backoff.ts";
import { median, round } from "../harness/index.ts";
import { workerdCpu } from "../harness/process-cpu.ts";
import { benchVars, readTopology, workerLogLevel, type TopologyVars } from "../worker-config.ts";
import { mainPid, peakRssBytes, Probe, resetPeakRss, rssBytes, type Sent } from "./probe.ts";
import { editedHistory, nestedFlood, objectFlood, randomWords } from "./texts.ts";
import { corpusRevisions } from "./corpus-history.ts";

export interface HostileMeasureRow {
  row: "measure";
  name: string;
  unit: "cpu_ms" | "bytes" | "ms";
  value: number | null;
  baseline: number | null;
  baseline_name: string;
  ratio: number | null;
  samples: number;
  status: number | null;
  content_encoding: string | null;
  served_by: string | null;
  body_bytes: number | null;
  /** Content-Length and Content-Range as sent (a Range cut from identity ends `/` + the revision's length). */
  content_length: number | null;
  content_range: string | null;
}

export interface HostileWalkRow {
  row: "walk";
  reads: number;
  revisions: number;
  revision_bytes: number;
  colos: string[];
  statuses: Record<string, number>;
  content_encodings: Record<string, number>;
  cpu_ms_median: number;
  cpu_ms_max: number;
  tiers: number;
}

export interface HostileSummaryRow {
  row: "summary";
  baseline_cpu_ms: number;
  worst_anonymous: { name: string; cpu_ms: number; ratio: number };
  tier_max_stored_bytes: number | null;
  tier_budget_bytes: number | null;
  tier_max_disk_bytes: number;
  peak_rss_bytes: number;
  workerd_restarted: boolean;
  seconds: number;
}

export interface HostileLoadRow {
  row: "load";
  /** The `read.during_*` row this load ran beside. */
  name: string;
  clients: number;
  exports: number;
  statuses: Record<string, number>;
  export_bytes: number;
}

export type HostileRow = HostileMeasureRow | HostileWalkRow | HostileSummaryRow | HostileLoadRow;

export interface HostileOptions {
  /** Smaller pages, fewer repeats, a short walk and 2 MiB write bodies: checks the behaviours in about a minute. */
  quick?: boolean;
  walkReads?: number;
  walkRevisions?: number;
  log?: (line: string) => void;
  onRow(row: HostileRow): void;
}

interface Sizes {
  compareLines: number;
  dcbBytes: number;
  walkReads: number;
  walkRevisions: number;
  walkBytes: number;
  floodBytes: number;
  repeats: number;
  /** Revisions of the corpus history the export rows export. */
  exportRevisions: number;
  /** Reads each `read.*` row times. */
  latencyReads: number;
}

const FULL: Sizes = {
  compareLines: 500,
  dcbBytes: 512 * 1024,
  walkReads: 400,
  walkRevisions: 40,
  walkBytes: 96 * 1024,
  floodBytes: LIMITS.storage.maxRequestBytes,
  repeats: 5,
  exportRevisions: 40,
  latencyReads: 30,
};
const QUICK: Sizes = {
  compareLines: 60,
  dcbBytes: 32 * 1024,
  walkReads: 60,
  walkRevisions: 12,
  walkBytes: 8 * 1024,
  floodBytes: 2 * 1024 * 1024,
  repeats: 2,
  exportRevisions: 6,
  latencyReads: 10,
};

/** The colo every CPU row reads from (the walk uses one of each region). */
const COLO = "LHR";
const ANONYMOUS_BR = { "accept-encoding": "br, gzip", "x-palimpsest-colo": COLO };
const PAGES = {
  small: "Hostile_small",
  compare: "Hostile_compare",
  dcb: "Hostile_dcb",
  big: "Hostile_big",
  walk: "Hostile_walk",
  flood: "Hostile_flood",
  export: "Hostile_export",
};
/** Clients exporting at once beside the timed reads. */
const EXPORT_CLIENTS = 8;
/** The big revision: over the largest entry a tier keeps, so its br can never be stored (ASCII: bytes = characters). */
export const BIG_REVISION_BYTES = LIMITS.tiers.maxEntryBytes + 64 * 1024;
/** A dcb target this far past the window, so three old revisions fall outside it and the latest (allowed) is not one of them. */
const DCB_TARGET = LIMITS.wire.dcbPredecessors + 5;

function revisions(texts: readonly string[]): NewRevision[] {
  return texts.map((text, i) => ({
    id: i + 1,
    parentId: i === 0 ? null : i,
    timestamp: new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString().replace(".000Z", "Z"),
    contributor: `Editor ${i % 5}`,
    comment: `edit ${i + 1}`,
    model: "wikitext",
    text,
  }));
}

const dictionaryOf = (text: string) => `:${createHash("sha256").update(text).digest("base64")}:`;
const header = (sent: Sent, name: string) => {
  const v = sent.headers[name];
  return Array.isArray(v) ? v.join(", ") : (v ?? null);
};

class Run {
  readonly rows: HostileMeasureRow[] = [];
  baseline = 0;
  restarted = false;

  constructor(
    readonly probe: Probe,
    readonly onRow: (row: HostileRow) => void,
  ) {}

  /** One row from requests' CPU: the median, against the baseline read. */
  cpu(name: string, sent: readonly Sent[]): HostileMeasureRow {
    const last = sent[sent.length - 1]!;
    const value = round(median(sent.map((s) => s.cpuMs)), 3);
    return this.emit({
      row: "measure",
      name,
      unit: "cpu_ms",
      value,
      baseline: this.baseline,
      baseline_name: "baseline.cached_read",
      ratio: this.baseline > 0 ? round(value / this.baseline, 2) : null,
      samples: sent.length,
      status: last.status,
      content_encoding: header(last, "content-encoding"),
      served_by: header(last, "x-palimpsest-tier"),
      body_bytes: last.body.byteLength,
      content_length: header(last, "content-length") === null ? null : Number(header(last, "content-length")),
      content_range: header(last, "content-range"),
    });
  }

  bytes(name: string, value: number | null, baseline: number | null, baselineName: string): HostileMeasureRow {
    return this.emit({
      row: "measure",
      name,
      unit: "bytes",
      value,
      baseline,
      baseline_name: baselineName,
      ratio: value !== null && baseline ? round(value / baseline, 4) : null,
      samples: 1,
      status: null,
      content_encoding: null,
      served_by: null,
      body_bytes: null,
      content_length: null,
      content_range: null,
    });
  }

  emit(row: HostileMeasureRow): HostileMeasureRow {
    this.rows.push(row);
    this.onRow(row);
    return row;
  }

  /** `times` requests for `path`, each after workerd has settled. */
  async repeat(times: number, path: string, headers: Record<string, string>): Promise<Sent[]> {
    const out: Sent[] = [];
    for (let i = 0; i < times; i++) {
      await this.probe.settle();
      out.push(await this.probe.send(path, headers));
    }
    return out;
  }
}

export async function benchHostile(options: HostileOptions): Promise<void> {
  const sizes: Sizes = { ...(options.quick ? QUICK : FULL) };
  if (options.walkReads !== undefined) sizes.walkReads = options.walkReads;
  if (options.walkRevisions !== undefined) sizes.walkRevisions = options.walkRevisions;
  const log = (line: string) => options.log?.(`bench hostile: ${line}`);
  const started = performance.now();
  const [bundle, topology] = await Promise.all([bundleWorker(), readTopology()]);
  try {
    const worker = await startLocalWorker({
      bundle,
      vars: benchVars({ ...topology, enabled: true }),
      memoryState: true,
      logLevel: workerLogLevel(),
    });
    try {
      await measure(worker, topology, sizes, log, options.onRow, started);
    } finally {
      await worker.stop();
    }
  } finally {
    bundle.dispose();
  }
}

async function measure(
  worker: LocalWorker,
  topology: TopologyVars,
  sizes: Sizes,
  log: (line: string) => void,
  onRow: (row: HostileRow) => void,
  started: number,
): Promise<void> {
  const client = new ArchiveClient({
    url: worker.url,
    token: worker.token,
    attempts: 3,
    retryable: retryLostByDevProxy,
  });
  const t0 = performance.now();
  const walkTexts = editedHistory(5, sizes.walkRevisions, sizes.walkBytes);
  const dcbTexts = editedHistory(3, DCB_TARGET + 2, sizes.dcbBytes);
  const bigText = editedHistory(4, 1, BIG_REVISION_BYTES + 4096, 0)[0]!.slice(0, BIG_REVISION_BYTES);
  await client.append(PAGES.small, revisions(editedHistory(1, 1, 2_000)));
  await client.append(PAGES.compare, revisions([1, 2, 3].map((seed) => randomWords(seed, sizes.compareLines))));
  await client.append(PAGES.dcb, revisions(dcbTexts));
  await client.append(PAGES.big, revisions([bigText]));
  await client.append(PAGES.walk, revisions(walkTexts));
  const exported = await corpusRevisions(sizes.exportRevisions);
  // A few revisions per request: each is about 1 MB, and a request carries at most storage.maxRequestBytes.
  for (let i = 0; i < exported.length; i += 8) await client.append(PAGES.export, exported.slice(i, i + 8));
  log(`wrote ${Object.keys(PAGES).length - 1} pages in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const probe = new Probe(worker.url, workerdCpu());
  const run = new Run(probe, onRow);
  try {
    // Baseline: the small revision, once to fill the colo, then read as cached.
    const small = `/page/${PAGES.small}/1`;
    await run.repeat(3, small, ANONYMOUS_BR);
    const baseline = await run.repeat(sizes.repeats * 3, small, ANONYMOUS_BR);
    run.baseline = round(median(baseline.map((s) => s.cpuMs)), 3);
    run.cpu("baseline.cached_read", baseline);

    // 1. compare: the first request for each of two pairs, then the first pair again.
    const html = { accept: "text/html", ...ANONYMOUS_BR };
    const firsts = [
      await run.repeat(1, `/page/${PAGES.compare}/compare/1...2`, html),
      await run.repeat(1, `/page/${PAGES.compare}/compare/2...3`, html),
    ].flat();
    run.cpu("compare.first", firsts);
    run.cpu("compare.repeat", await run.repeat(sizes.repeats, `/page/${PAGES.compare}/compare/1...2`, html));
    log("compare measured");

    // 2. dcb: the predecessor (a browser's dictionary), then old revisions outside the window.
    const target = `/page/${PAGES.dcb}/${DCB_TARGET}`;
    // The revision itself is in the colo first, so each row is the cost of the dictionary alone.
    await run.repeat(2, target, ANONYMOUS_BR);
    const dcb = (dictionaryId: number) => ({
      ...ANONYMOUS_BR,
      "accept-encoding": "dcb, br, gzip",
      "available-dictionary": dictionaryOf(dcbTexts[dictionaryId - 1]!),
    });
    run.cpu("dcb.predecessor.first", await run.repeat(1, target, dcb(DCB_TARGET - 1)));
    run.cpu("dcb.predecessor.repeat", await run.repeat(sizes.repeats, target, dcb(DCB_TARGET - 1)));
    const old = [1, 2, 3];
    run.cpu(
      "dcb.outside_window.first",
      await Promise.all(old.map(async (id) => (await run.repeat(1, target, dcb(id)))[0]!)),
    );
    run.cpu("dcb.outside_window.repeat", await run.repeat(sizes.repeats, target, dcb(1)));
    log("dcb measured");

    // 3. br of a revision too big for a tier entry, whole and as an 11-byte Range.
    const big = `/page/${PAGES.big}/1`;
    run.cpu(
      "br.big.identity",
      await run.repeat(Math.min(3, sizes.repeats + 1), big, { ...ANONYMOUS_BR, "accept-encoding": "identity" }),
    );
    run.cpu("br.big.full", await run.repeat(Math.min(3, sizes.repeats + 1), big, ANONYMOUS_BR));
    run.cpu(
      "br.big.range",
      await run.repeat(Math.min(3, sizes.repeats + 1), big, { ...ANONYMOUS_BR, range: "bytes=0-10" }),
    );
    log("br of the big revision measured");

    // 4. A long walk of old revisions from every region, then what each tier keeps.
    onRow(await walk(run, topology, walkTexts, sizes));
    await probe.settle();
    const storage = await tierStorage(worker);
    const allTiers = storage.budget && storage.budget * storage.tiers;
    for (const [what, max, total] of [
      ["stored", storage.maxStored, storage.totalStored],
      ["disk", storage.maxDisk, storage.totalDisk],
    ] as const) {
      run.bytes(`tiers.max_${what}_bytes`, max, storage.budget, "tier budgetBytes");
      run.bytes(`tiers.total_${what}_bytes`, total, allTiers, "tier budgetBytes × tiers");
    }
    log("tier storage read");

    // 6. Anonymous exports of the largest page: their cost, and a read's wall time beside them.
    await exports(run, sizes);
    log("exports measured");

    // 5. The largest write bodies the API reads, refused: CPU and peak RSS.
    let peak = 0;
    for (const [name, body] of [
      ["objects", objectFlood(sizes.floodBytes)],
      ["nested", nestedFlood(sizes.floodBytes)],
    ] as const) {
      await probe.settle();
      const pid = mainPid(probe.pids);
      const resettable = resetPeakRss(pid);
      const before = rssBytes(pid);
      const sent = await probe.send(
        `/api/pages/${PAGES.flood}/revisions`,
        { authorization: `Bearer ${worker.token}`, "content-type": "application/json" },
        { method: "POST", body },
      );
      const hwm = peakRssBytes(pid);
      run.cpu(`write.${name}.cpu`, [sent]);
      run.bytes(`write.${name}.peak_rss`, resettable ? hwm : null, before, "workerd RSS before the request");
      peak = Math.max(peak, hwm);
      if (await restartedSince(worker, probe, pid, sent)) run.restarted = true;
    }
    log("refused writes measured");

    const anonymous = run.rows.filter(
      (r) => r.unit === "cpu_ms" && !r.name.startsWith("write.") && r.name !== "baseline.cached_read",
    );
    const worst = anonymous.reduce((a, b) => ((b.value ?? 0) > (a.value ?? 0) ? b : a));
    onRow({
      row: "summary",
      baseline_cpu_ms: run.baseline,
      worst_anonymous: { name: worst.name, cpu_ms: worst.value ?? 0, ratio: worst.ratio ?? 0 },
      tier_max_stored_bytes: storage.maxStored,
      tier_budget_bytes: storage.budget,
      tier_max_disk_bytes: storage.maxDisk,
      peak_rss_bytes: peak,
      workerd_restarted: run.restarted,
      seconds: round((performance.now() - started) / 1000, 1),
    });
  } finally {
    probe.close();
  }
}

/** One colo of each region, in the topology's order. */
function oneColoPerRegion(topology: TopologyVars): string[] {
  return Object.values(topology.regions).map((r) => r.colos[0]!);
}

async function walk(run: Run, topology: TopologyVars, texts: readonly string[], sizes: Sizes): Promise<HostileWalkRow> {
  const rand = mulberry32(9);
  const colos = oneColoPerRegion(topology);
  const statuses: Record<string, number> = {};
  const encodings: Record<string, number> = {};
  const cpu: number[] = [];
  const hashes = texts.map(dictionaryOf);
  // Old revisions only: every one but the latest, which a writer's next edit would move on from.
  const old = texts.length - 1;
  for (let i = 0; i < sizes.walkReads; i++) {
    const id = 1 + Math.floor(rand() * old);
    let dictionary = 1 + Math.floor(rand() * texts.length);
    if (dictionary === id) dictionary = (dictionary % texts.length) + 1;
    const colo = colos[Math.floor(rand() * colos.length)]!;
    const sent = await run.probe.send(`/page/${PAGES.walk}/${id}`, {
      "accept-encoding": "dcb, br, gzip",
      "available-dictionary": hashes[dictionary - 1]!,
      "x-palimpsest-colo": colo,
    });
    statuses[sent.status] = (statuses[sent.status] ?? 0) + 1;
    const coding = header(sent, "content-encoding") ?? "identity";
    encodings[coding] = (encodings[coding] ?? 0) + 1;
    cpu.push(sent.cpuMs);
  }
  return {
    row: "walk",
    reads: sizes.walkReads,
    revisions: texts.length,
    revision_bytes: sizes.walkBytes,
    colos,
    statuses,
    content_encodings: encodings,
    cpu_ms_median: round(median(cpu), 3),
    cpu_ms_max: round(Math.max(...cpu), 3),
    tiers: Object.values(topology.regions).reduce((n, r) => n + Object.keys(r.tiers).length, 0),
  };
}

interface TierStorage {
  tiers: number;
  budget: number | null;
  maxStored: number | null;
  totalStored: number | null;
  maxDisk: number;
  totalDisk: number;
}

/** `GET /api/tiers` (operator token) for what each tier counts, and the TierCache SQLite files on disk. */
async function tierStorage(worker: LocalWorker): Promise<TierStorage> {
  const res = await fetch(`${worker.url}/api/tiers`, { headers: { authorization: `Bearer ${worker.token}` } });
  if (!res.ok) throw new Error(`GET /api/tiers answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const body = await res.json<{ tiers: Array<{ tier: string; storedBytes?: number; budgetBytes?: number }> }>();
  const stored = body.tiers.map((t) => t.storedBytes).filter((n): n is number => typeof n === "number");
  const budgets = body.tiers.map((t) => t.budgetBytes).filter((n): n is number => typeof n === "number");
  const disk = [...tierFiles(worker.persistDir).values()];
  return {
    tiers: body.tiers.length,
    budget: budgets.length ? Math.max(...budgets) : null,
    maxStored: stored.length === body.tiers.length ? Math.max(...stored) : null,
    totalStored: stored.length === body.tiers.length ? stored.reduce((a, b) => a + b, 0) : null,
    maxDisk: disk.length ? Math.max(...disk) : 0,
    totalDisk: disk.reduce((a, b) => a + b, 0),
  };
}

/** Bytes per TierCache Durable Object on disk: its SQLite database with its -wal and -shm files. */
function tierFiles(root: string): Map<string, number> {
  const sizes = new Map<string, number>();
  const visit = (dir: string, inTier: boolean) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path, inTier || entry.name.includes("TierCache"));
      else if (inTier && /\.sqlite(-wal|-shm)?$/.test(entry.name)) {
        const db = path.replace(/-(wal|shm)$/, "");
        sizes.set(db, (sizes.get(db) ?? 0) + statSync(path).size);
      }
    }
  };
  visit(root, false);
  return sizes;
}

/** Whether the Worker restarted under the request: a 503 saying so, or a workerd process gone. Finds workerd again if so. */
async function restartedSince(worker: LocalWorker, probe: Probe, pid: number, sent: Sent): Promise<boolean> {
  const said = sent.status === 503 && sent.body.toString("utf8").includes("restarted");
  let gone = false;
  try {
    rssBytes(pid);
  } catch {
    gone = true;
  }
  if (said || gone || sent.status === 0) {
    // Give wrangler time to bring it back, then measure the process that runs it now.
    for (let i = 0; i < 60; i++) {
      if (
        (await fetch(`${worker.url}/healthz`).then(
          (r) => r.ok,
          () => false,
        )) === true
      )
        break;
      await new Promise((r) => setTimeout(r, 500));
    }
    probe.refind();
  }
  return said || gone;
}

/** One anonymous client of the export load: its own address, so the per-client limit counts it alone. */
const exporter = (n: number, extra: Record<string, string> = {}) => ({
  "accept-encoding": "identity",
  "x-palimpsest-colo": COLO,
  "cf-connecting-ip": `198.51.100.${n}`,
  ...extra,
});

/** A GET whose body is counted and dropped: eight clients' exports need not sit in this process's memory. */
function drain(url: URL, headers: Record<string, string>, agent: Agent): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, agent, timeout: 180_000 }, (res) => {
      let bytes = 0;
      res.on("data", (c: Buffer) => void (bytes += c.byteLength));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error("no answer in 180 s")));
    req.on("error", reject);
    req.end();
  });
}

/**
 * The export rows: an anonymous export's CPU first, repeated and revalidated, then a read's wall time
 * alone and beside eight exporting clients (the same export again and again, then one that no tier can
 * answer), each against the read alone in the same run.
 */
async function exports(run: Run, sizes: Sizes): Promise<void> {
  const path = (limit: number = LIMITS.export.maxRevisions) =>
    `/page/${PAGES.export}/export${limit === LIMITS.export.maxRevisions ? "" : `?limit=${limit}`}`;
  const firsts: Sent[] = [];
  for (const [i, limit] of [LIMITS.export.maxRevisions, 999, 998].entries())
    firsts.push(...(await run.repeat(1, path(limit), exporter(1 + i))));
  run.cpu("export.anonymous.first", firsts);
  run.cpu("export.anonymous.repeat", await run.repeat(sizes.repeats, path(), exporter(4)));
  const etag = header(firsts[0]!, "etag");
  run.cpu(
    "export.anonymous.not_modified",
    await run.repeat(sizes.repeats, path(), exporter(5, { "if-none-match": etag ?? '"none"' })),
  );

  const read = `/page/${PAGES.small}/1`;
  const timedReads = async (): Promise<number> => {
    const ms: number[] = [];
    for (let i = 0; i < sizes.latencyReads; i++) {
      const t0 = performance.now();
      const sent = await run.probe.send(read, ANONYMOUS_BR);
      if (sent.status !== 200) throw new Error(`the timed read answered ${sent.status}`);
      ms.push(performance.now() - t0);
    }
    return round(median(ms), 3);
  };
  const latency = (name: string, value: number, baseline: number) =>
    run.emit({
      row: "measure",
      name,
      unit: "ms",
      value,
      baseline,
      baseline_name: "read.alone",
      ratio: baseline > 0 ? round(value / baseline, 2) : null,
      samples: sizes.latencyReads,
      status: 200,
      content_encoding: null,
      served_by: null,
      body_bytes: null,
      content_length: null,
      content_range: null,
    });

  await run.probe.settle();
  const alone = await timedReads();
  latency("read.alone", alone, alone);

  let limits = 900;
  // The anchor: eight clients reading the same small revision back to back. workerd runs the Worker on one
  // thread, so any eight busy clients queue a read behind their requests; exports can at best match this.
  const load = (kind: "reads" | "exports" | "uncached_exports", c: number) => {
    if (kind === "reads")
      return { url: read, headers: { ...ANONYMOUS_BR, "cf-connecting-ip": `198.51.100.${40 + c}` } };
    const uncached = kind === "uncached_exports";
    // Uncached: each export another `?limit=` (all above the page's revisions, so the same work).
    return {
      url: uncached ? path((limits -= 1)) : path(),
      headers: exporter(10 + c + (uncached ? EXPORT_CLIENTS : 0)),
    };
  };
  for (const kind of ["reads", "exports", "uncached_exports"] as const) {
    const name = `read.during_${kind}`;
    await run.probe.settle();
    let running = true;
    const statuses: Record<string, number> = {};
    let sent = 0;
    let bytes = 0;
    const clients = Array.from({ length: EXPORT_CLIENTS }, async (_, c) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (running) {
          const next = load(kind, c);
          const got = await drain(new URL(next.url, run.probe.baseUrl), next.headers, agent);
          sent++;
          bytes += got.bytes;
          statuses[got.status] = (statuses[got.status] ?? 0) + 1;
        }
      } finally {
        agent.destroy();
      }
    });
    // The clients' first requests are on their way before the first timed read.
    await sleep(200);
    let during: number;
    try {
      during = await timedReads();
    } finally {
      running = false;
      await Promise.all(clients);
    }
    latency(name, during, alone);
    run.onRow({
      row: "load",
      name,
      clients: EXPORT_CLIENTS,
      exports: sent,
      statuses,
      export_bytes: bytes,
    });
  }
}
