/**
 * How `bench hostile` sends one request and reads what it cost the local
 * Worker: workerd's CPU time across the request (harness/process-cpu.ts), and
 * its memory from `/proc/PID/status` (VmRSS now, VmHWM the peak since it was
 * last reset through `/proc/PID/clear_refs`). Bodies are read as they come
 * off the wire (node:http, nothing decoded), so the figures are the server's
 * alone; a body is sent in chunks without a Content-Length, as a client
 * streaming a big upload sends it.
 *
 * @example
 * const probe = new Probe(worker.url, workerdCpu());
 * const sent = await probe.send("/page/Vellum/1", { "accept-encoding": "br, gzip" });
 * sent.cpuMs; sent.status; sent.headers["content-encoding"];
 */
import { Agent, type IncomingHttpHeaders } from "node:http";
import { errorMessage } from "../../../lib/errors.ts";
import { readFileSync, writeFileSync } from "node:fs";
import { workerdCpu, type ProcessCpu } from "../harness/process-cpu.ts";
import { rawRequest } from "../harness/raw-request.ts";
import { sleep } from "../../../lib/backoff.ts";

export interface Sent {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  cpuMs: number;
  /** Set when the connection failed instead of answering (status 0). */
  error?: string;
}

export interface SendOptions {
  method?: string;
  body?: Buffer;
  /** Chunk size for a streamed body. */
  chunkBytes?: number;
}

/** Longer than any request here takes, even an old build compressing 8 MiB or parsing 24 MiB on a loaded machine. */
const REQUEST_TIMEOUT_MS = 180_000;

export class Probe {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 });
  #cpu: ProcessCpu;

  constructor(
    readonly baseUrl: string,
    cpu: ProcessCpu,
  ) {
    this.#cpu = cpu;
  }

  get pids(): readonly number[] {
    return this.#cpu.pids;
  }

  /** Finds workerd again: a Worker that restarted mid-request runs in another process. */
  refind(): void {
    this.#cpu = workerdCpu();
  }

  cpuNanos(): number {
    return this.#cpu.nanos();
  }

  async send(path: string, headers: Record<string, string>, options: SendOptions = {}): Promise<Sent> {
    const before = this.#cpu.nanos();
    const res = await this.#exchange(path, headers, options).catch((err: unknown) => ({
      status: 0,
      headers: {},
      body: Buffer.alloc(0),
      error: errorMessage(err),
    }));
    return { ...res, cpuMs: Math.max(0, this.#cpu.nanos() - before) / 1e6 };
  }

  #exchange(path: string, headers: Record<string, string>, options: SendOptions): Promise<Omit<Sent, "cpuMs">> {
    const { method, body, chunkBytes } = options;
    // A streamed body gets a connection of its own: one a server answered early may not be reusable.
    return rawRequest(new URL(path, this.baseUrl), {
      method,
      headers,
      agent: body ? false : this.#agent,
      timeoutMs: REQUEST_TIMEOUT_MS,
      body,
      chunkBytes,
    });
  }

  /**
   * Waits until workerd is idle (under `idleMs` of CPU in a `windowMs` window): a write's
   * purge deliveries and the autoscalers' samples must not land in the next request's figure.
   */
  async settle(timeoutMs = 30_000, windowMs = 300, idleMs = 3): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const before = this.#cpu.nanos();
      await sleep(windowMs);
      if ((this.#cpu.nanos() - before) / 1e6 < idleMs) return;
    }
  }

  close(): void {
    this.#agent.destroy();
  }
}

function statusField(pid: number, field: "VmRSS" | "VmHWM"): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
}

/** The workerd process holding the most memory now (the one running the Worker, not a helper). */
export function mainPid(pids: readonly number[]): number {
  return [...pids].sort((a, b) => statusField(b, "VmRSS") - statusField(a, "VmRSS"))[0]!;
}

export function rssBytes(pid: number): number {
  return statusField(pid, "VmRSS");
}

export function peakRssBytes(pid: number): number {
  return statusField(pid, "VmHWM");
}

/** Resets the process's peak RSS to its RSS now (Linux ≥ 4.0); false where that is not allowed. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}
