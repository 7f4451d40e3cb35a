/**
 * `bench codecs --worker-gzip`: the Worker's own gzip (workerd's built-in
 * node:zlib, src/codec/gzip-platform.ts, as the wire uses it) timed in
 * workerd, against Node's zlib at the same level (6) on the same inputs in
 * the same run.
 *
 * Inside a Worker the clock stands still while code runs, so the Worker
 * cannot time itself. A local Worker runs each input `rounds` times through
 * the development-only route (workers/admin/dev-codec-routes.ts), and the
 * cost of one round is workerd's CPU time (per-thread schedstat,
 * src/bench/harness/process-cpu.ts) for a request of `rounds` rounds less
 * that of a request of none, over `rounds`: the HTTP, routing and body
 * copies cancel out. Each pair of requests is repeated and the medians
 * taken. Node's side is timed with the benches' one harness, before the
 * Worker starts.
 *
 * @example
 * const rows = await benchWorkerGzip(items, DEFAULT_POLICY, console.error);
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { startLocalWorker } from "../local/local-worker.ts";
import { comparison, measure, mbPerSecond, median, type TimingPolicy } from "./harness/index.ts";
import { workerdCpu } from "./harness/process-cpu.ts";
import { sum, type CodecOp, type CodecRow } from "./codecs.ts";
import { LIMITS } from "../limits.ts";

const LEVEL = 6;
/** Uncompressed bytes one timed request works through, so its CPU time dwarfs the request's own. */
const BYTES_PER_REQUEST = 4_000_000;

export async function benchWorkerGzip(items: readonly Uint8Array[], policy: TimingPolicy, log: (msg: string) => void): Promise<CodecRow[]> {
  const packed = items.map((b) => gzipSync(b, { level: LEVEL }));
  // Node's side first, before a Worker and its dev server share the machine and this process.
  const node = {
    compress: measure(() => items.forEach((b) => gzipSync(b, { level: LEVEL })), policy).seconds,
    decompress: measure(() => packed.forEach((p) => gunzipSync(p)), policy).seconds,
  };
  const worker = await startLocalWorker({ vars: { ENVIRONMENT: "development" } });
  try {
    const cpu = workerdCpu();
    const repeats = Math.max(3, policy.minPasses);
    /** workerd CPU nanoseconds of one round of `op` on `body`. */
    const perRound = async (op: CodecOp, body: Uint8Array, plainBytes: number): Promise<number> => {
      const rounds = Math.min(LIMITS.http.maxDevCodecRounds, Math.max(4, Math.ceil(BYTES_PER_REQUEST / Math.max(1, plainBytes))));
      const cost = async (n: number) => {
        const before = cpu.nanos();
        const res = await fetch(`${worker.url}/api/dev/codec/gzip?op=${op}&rounds=${n}`, { method: "POST", body, headers: { authorization: `Bearer ${worker.token}` } });
        if (!res.ok) throw new Error(`worker gzip ${op}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
        await res.arrayBuffer();
        return cpu.nanos() - before;
      };
      await cost(rounds); // warm-up
      const none: number[] = [];
      const some: number[] = [];
      for (let i = 0; i < repeats; i++) {
        none.push(await cost(0));
        some.push(await cost(rounds));
      }
      return Math.max(0, median(some) - median(none)) / rounds;
    };
    const rows: CodecRow[] = [];
    for (const op of ["compress", "decompress"] as const) {
      let nanos = 0;
      for (let i = 0; i < items.length; i++) nanos += await perRound(op, op === "compress" ? items[i]! : packed[i]!, items[i]!.byteLength);
      const c = comparison(mbPerSecond(sum(items), nanos / 1e9), mbPerSecond(sum(items), node[op]));
      const [inputs, outputs] = op === "compress" ? [items, packed] : [packed, items];
      rows.push({ codec: "gzip-worker", op, quality: LEVEL, lgwin: null, dict: false, bytes_in: sum(inputs), bytes_out: sum(outputs), mb_per_s: c.mbPerS, baseline: "node-zlib-gzip", baseline_mb_per_s: c.baselineMbPerS, ratio_vs_baseline: c.ratio });
      log(`bench codecs: workerd gzip ${op}: ${c.mbPerS.toFixed(1)} MB/s, node zlib ${c.baselineMbPerS?.toFixed(1)} MB/s`);
    }
    return rows;
  } finally {
    await worker.stop();
  }
}
