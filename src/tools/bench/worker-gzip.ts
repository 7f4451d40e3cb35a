/**
 * `bench codecs --worker-gzip`: the Worker's own gzip (workerd's built-in
 * node:zlib, src/codec/gzip-platform.ts, as the wire uses it) timed in
 * workerd, against Node's zlib at the same level (6) on the same inputs in
 * the same run.
 *
 * Inside a Worker the clock stands still while code runs, so the Worker
 * cannot time itself. A local Worker runs each input `rounds` times through
 * the development-only route (workers/routes/admin/dev-codec-routes.ts), and the
 * cost of one round is workerd's CPU time (per-thread schedstat,
 * src/tools/bench/harness/process-cpu.ts) for a request of `rounds` rounds less
 * that of a request of none, over `rounds`: the HTTP, routing and body
 * copies cancel out. A pass is one such pair per input, as a pass of
 * Node's side is one call per input, and both sides follow the same policy
 * (warm-up time, minimum passes and time, the median pass). The Worker's
 * side once took one warm-up request and three pairs: workerd's node:zlib
 * was still warming up, and html gunzip read 0.82-0.90 x Node's zlib in
 * runs that now read 1.06-1.13 x. Node's side is timed before the Worker
 * starts.
 *
 * @example
 * const rows = await benchWorkerGzip(items, DEFAULT_POLICY, console.error);
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { startLocalWorker } from "../local/local-worker.ts";
import { comparison, measure, mbPerSecond, median, type TimingPolicy } from "./harness/index.ts";
import { workerdCpu } from "./harness/process-cpu.ts";
import { sum, type CodecOp, type CodecRow } from "./codecs.ts";
import { LIMITS } from "../../limits.ts";

const LEVEL = 6;
/** Uncompressed bytes one timed request works through, so its CPU time dwarfs the request's own. */
const BYTES_PER_REQUEST = 4_000_000;

export async function benchWorkerGzip(
  items: readonly Uint8Array[],
  policy: TimingPolicy,
  log: (msg: string) => void,
): Promise<CodecRow[]> {
  const packed = items.map((b) => gzipSync(b, { level: LEVEL }));
  // Node's side first, before a Worker and its dev server share the machine and this process.
  const node = {
    compress: measure(() => items.forEach((b) => gzipSync(b, { level: LEVEL })), policy).seconds,
    decompress: measure(() => packed.forEach((p) => gunzipSync(p)), policy).seconds,
  };
  const worker = await startLocalWorker({ vars: { ENVIRONMENT: "development" } });
  try {
    const cpu = workerdCpu();
    /** workerd CPU nanoseconds of a request running `op` on `body` `n` times. */
    const cost = async (op: CodecOp, body: Uint8Array, n: number): Promise<number> => {
      const before = cpu.nanos();
      const res = await fetch(`${worker.url}/api/dev/codec/gzip?op=${op}&rounds=${n}`, {
        method: "POST",
        body,
        headers: { authorization: `Bearer ${worker.token}` },
      });
      if (!res.ok) throw new Error(`worker gzip ${op}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
      await res.arrayBuffer();
      return cpu.nanos() - before;
    };
    const rows: CodecRow[] = [];
    for (const op of ["compress", "decompress"] as const) {
      const bodies = op === "compress" ? items : packed;
      const rounds = items.map((b) =>
        Math.min(LIMITS.http.maxDevCodecRounds, Math.max(4, Math.ceil(BYTES_PER_REQUEST / Math.max(1, b.byteLength)))),
      );
      /** One pass over every input, as Node's side makes: its net CPU seconds per round, and all it spent. */
      const pass = async (): Promise<{ seconds: number; spent: number }> => {
        let net = 0;
        let spent = 0;
        for (let i = 0; i < bodies.length; i++) {
          const none = await cost(op, bodies[i]!, 0);
          const some = await cost(op, bodies[i]!, rounds[i]!);
          net += Math.max(0, some - none) / rounds[i]!;
          spent += some + none;
        }
        return { seconds: net / 1e9, spent: spent / 1e9 };
      };
      const seconds = await timedPasses(pass, policy);
      const c = comparison(mbPerSecond(sum(items), seconds), mbPerSecond(sum(items), node[op]));
      const [inputs, outputs] = op === "compress" ? [items, packed] : [packed, items];
      rows.push({
        codec: "gzip-worker",
        op,
        quality: LEVEL,
        lgwin: null,
        dict: false,
        bytes_in: sum(inputs),
        bytes_out: sum(outputs),
        mb_per_s: c.mbPerS,
        baseline: "node-zlib-gzip",
        baseline_mb_per_s: c.baselineMbPerS,
        ratio_vs_baseline: c.ratio,
      });
      log(
        `bench codecs: workerd gzip ${op}: ${c.mbPerS.toFixed(1)} MB/s, node zlib ${c.baselineMbPerS?.toFixed(1)} MB/s`,
      );
    }
    return rows;
  } finally {
    await worker.stop();
  }
}

/**
 * The harness's rule (src/tools/bench/harness/timing.ts) for passes the Worker
 * runs: warm-up passes until warmupSeconds of workerd CPU, then passes until
 * minPasses and minSeconds, and the median (or best) pass.
 */
async function timedPasses(
  pass: () => Promise<{ seconds: number; spent: number }>,
  policy: TimingPolicy,
): Promise<number> {
  let warm = 0;
  for (let i = 0; i < policy.warmupPasses || warm < (policy.warmupSeconds ?? 0); i++) warm += (await pass()).spent;
  const times: number[] = [];
  let spent = 0;
  while (times.length < policy.maxPasses && (times.length < policy.minPasses || spent < policy.minSeconds)) {
    const p = await pass();
    times.push(p.seconds);
    spent += p.spent;
  }
  return policy.statistic === "best" ? Math.min(...times) : median(times);
}
