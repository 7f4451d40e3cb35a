/**
 * `bench wire`: what readers are sent. Each history is imported into the
 * project's own Worker running locally in workerd (tiers on, the committed
 * topology, fresh storage per history), then walked twice as a browser walks
 * it (walk.ts: every revision oldest first, identity, gzip, br and dcb): the
 * first walk finds every tier cold, so it pays for every encoding once; the
 * second finds them all cached ("hot"). br and identity in the same run are
 * the baselines dcb and a hot br read are judged against.
 *
 * Rows (one JSON line each):
 *
 * | row | fields |
 * |---|---|
 * | `encoding` | history (or `total`), media_type, revisions, encoding, bytes (body bytes on the wire over the walk), bytes_vs_identity, content_encodings (responses per Content-Encoding sent), retries (requests wrangler's dev proxy lost, sent again), cold_cpu_ms_p50/p99 and hot_cpu_ms_p50/p99 (workerd CPU ms per response; hot ones null with `--no-hot`) |
 * | `target` | history, target, want, got, met: dcb ≥ 10 × fewer bytes than br (each history and the total), and a hot br read's CPU p50 ≤ 1.10 × a hot identity read's (the total) |
 *
 * @example
 * await benchWire(["../shared/corpus/histories/bip-0340.xml.br"], { log: console.error, onRow: (r) => console.log(JSON.stringify(r)) });
 */
import { ArchiveClient } from "../../local/archive-client.ts";
import { startLocalWorker } from "../../local/local-worker.ts";
import { bundleWorker, type WorkerBundle } from "../../local/worker-bundle.ts";
import type { ExportRevision } from "../../import/mediawiki-reader.ts";
import { normalizeTitle } from "../../../page/title.ts";
import { percentile, round } from "../harness/index.ts";
import { workerdCpu } from "../harness/process-cpu.ts";
import { exportRevisions, historyName, HistoryInputError } from "../store/history.ts";
import { importHistory } from "../store/importer.ts";
import { benchVars, readTopology, workerLogLevel } from "../worker-config.ts";
import { WIRE_ENCODINGS, walkHistory, type Walk, type WireEncoding } from "./walk.ts";

export interface WireEncodingRow {
  row: "encoding";
  history: string;
  media_type: string;
  revisions: number;
  encoding: WireEncoding;
  bytes: number;
  bytes_vs_identity: number;
  content_encodings: Record<string, number>;
  /** Requests the local dev proxy lost and the walk sent again. */
  retries: number;
  cold_cpu_ms_p50: number;
  cold_cpu_ms_p99: number;
  /** null when the hot walk was skipped (`--no-hot`). */
  hot_cpu_ms_p50: number | null;
  hot_cpu_ms_p99: number | null;
}

export interface WireTargetRow {
  row: "target";
  history: string;
  target: string;
  want: string;
  got: number;
  met: boolean;
}

export type WireRow = WireEncodingRow | WireTargetRow;

export interface WireBenchOptions {
  /** Walk each history a second time, every tier warm (default true). */
  hot?: boolean;
  log?: (line: string) => void;
  onRow(row: WireRow): void;
}

/** Both walks of one history. */
interface Walked {
  history: string;
  revisions: number;
  cold: Walk;
  hot: Walk | null;
}

const DCB_BYTES_TARGET = 10;
const HOT_BR_CPU_TARGET = 1.1;

export async function benchWire(files: readonly string[], options: WireBenchOptions): Promise<void> {
  const [bundle, topology] = await Promise.all([bundleWorker(), readTopology()]);
  const walked: Walked[] = [];
  try {
    for (const file of files) {
      const one = await walkOne(
        file,
        bundle,
        benchVars({ ...topology, enabled: true }),
        options.hot ?? true,
        options.log ?? (() => undefined),
      );
      walked.push(one);
      for (const row of encodingRows(one.history, one.revisions, [one])) options.onRow(row);
      options.onRow(dcbTarget(one.history, [one]));
    }
  } finally {
    bundle.dispose();
  }
  if (walked.length === 0) return;
  const revisions = walked.reduce((n, w) => n + w.revisions, 0);
  for (const row of encodingRows("total", revisions, walked)) options.onRow(row);
  options.onRow(dcbTarget("total", walked));
  if (walked.every((w) => w.hot !== null)) options.onRow(hotBrTarget(walked));
}

async function walkOne(
  file: string,
  bundle: WorkerBundle,
  vars: Record<string, unknown>,
  hotWalk: boolean,
  log: (line: string) => void,
): Promise<Walked> {
  const history = historyName(file);
  const say = (line: string) => log(`bench wire: ${history}: ${line}`);
  const worker = await startLocalWorker({ bundle, vars, logLevel: workerLogLevel() });
  try {
    const client = new ArchiveClient({ url: worker.url, token: worker.token, attempts: 1 });
    // The page's key comes from the first revision, before the first request.
    const revisions = exportRevisions(file);
    const head = await revisions.next();
    if (head.done) throw new HistoryInputError(`${file} holds no revisions`);
    const first: ExportRevision = head.value;
    const title = normalizeTitle(first.title);
    if (!title.ok) throw new HistoryInputError(`${file}: ${title.reason}`);
    const key = title.key;
    async function* all(): AsyncGenerator<ExportRevision> {
      yield first;
      yield* revisions;
    }
    const imported = await importHistory(client, key, all());
    say(
      `imported ${imported.revisions.length} revisions (${(imported.rawBytes / 1e6).toFixed(1)} MB) in ${imported.seconds.toFixed(1)} s`,
    );
    const cpu = workerdCpu();
    const started = performance.now();
    const cold = await walkHistory(worker.url, key, imported.revisions, cpu);
    say(`cold walk (${WIRE_ENCODINGS.join(", ")}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const hot = hotWalk ? await walkHistory(worker.url, key, imported.revisions, cpu) : null;
    if (hot) say(`hot walk in ${((performance.now() - started) / 1000).toFixed(1)} s in all`);
    return { history, revisions: imported.revisions.length, cold, hot };
  } finally {
    await worker.stop();
  }
}

function encodingRows(history: string, revisions: number, walked: readonly Walked[]): WireEncodingRow[] {
  const sum = (e: WireEncoding) => walked.reduce((n, w) => n + w.cold.responses[e].bytes, 0);
  const identity = sum("identity");
  const mediaTypes = [...new Set(walked.map((w) => w.cold.mediaType))];
  return WIRE_ENCODINGS.map((encoding) => {
    const cold = walked.flatMap((w) => w.cold.responses[encoding].cpuMs);
    const hot = walked.every((w) => w.hot !== null) ? walked.flatMap((w) => w.hot!.responses[encoding].cpuMs) : null;
    const contentEncodings: Record<string, number> = {};
    for (const w of walked)
      for (const [name, n] of Object.entries(w.cold.responses[encoding].contentEncodings))
        contentEncodings[name] = (contentEncodings[name] ?? 0) + n;
    return {
      row: "encoding",
      history,
      media_type: mediaTypes.length === 1 ? mediaTypes[0]! : "mixed",
      revisions,
      encoding,
      bytes: sum(encoding),
      bytes_vs_identity: round(sum(encoding) / identity, 5),
      content_encodings: contentEncodings,
      retries: walked.reduce(
        (n, w) => n + w.cold.responses[encoding].retries + (w.hot?.responses[encoding].retries ?? 0),
        0,
      ),
      cold_cpu_ms_p50: round(percentile(cold, 50), 3),
      cold_cpu_ms_p99: round(percentile(cold, 99), 3),
      hot_cpu_ms_p50: hot && round(percentile(hot, 50), 3),
      hot_cpu_ms_p99: hot && round(percentile(hot, 99), 3),
    };
  });
}

function dcbTarget(history: string, walked: readonly Walked[]): WireTargetRow {
  const bytes = (e: WireEncoding) => walked.reduce((n, w) => n + w.cold.responses[e].bytes, 0);
  const got = round(bytes("br") / bytes("dcb"), 2);
  return {
    row: "target",
    history,
    target: "br bytes / dcb bytes over the walk",
    want: `>= ${DCB_BYTES_TARGET}`,
    got,
    met: got >= DCB_BYTES_TARGET,
  };
}

function hotBrTarget(walked: readonly Walked[]): WireTargetRow {
  const hot = (e: WireEncoding) => walked.flatMap((w) => w.hot!.responses[e].cpuMs);
  const got = round(percentile(hot("br"), 50) / percentile(hot("identity"), 50), 3);
  return {
    row: "target",
    history: "total",
    target: "hot br read CPU p50 / hot identity read CPU p50",
    want: `<= ${HOT_BR_CPU_TARGET}`,
    got,
    met: got <= HOT_BR_CPU_TARGET,
  };
}
