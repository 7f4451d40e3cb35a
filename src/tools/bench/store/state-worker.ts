/**
 * A local Worker that `bench store` stops and starts again on the same stored
 * state (its `persistDir`), so a read can be the first since the Worker was
 * started afresh: no Durable Object running, nothing in their memory. The
 * whole-wiki mode (wiki.ts) and a single history's cold reads (history-beside.ts)
 * both use it.
 *
 * @example
 * const worker = new StateWorker({ bundle, vars }, join(scratch, "state"));
 * let client = await worker.start();
 * await worker.stop();
 * client = await worker.start(); // the same pages, nothing in memory
 */
import { ArchiveClient } from "../../local/archive-client.ts";
import { startLocalWorker, type LocalWorker } from "../../local/local-worker.ts";
import type { WorkerBundle } from "../../local/worker-bundle.ts";

/** What every Worker of a run starts from (run.ts's setup). */
export interface WorkerSetup {
  bundle: WorkerBundle;
  vars: Record<string, unknown>;
  logLevel?: "debug" | "info" | "log" | "warn";
}

export class StateWorker {
  #running: LocalWorker | null = null;

  constructor(
    private readonly setup: WorkerSetup,
    readonly persistDir: string,
  ) {}

  async start(): Promise<ArchiveClient> {
    if (this.#running !== null) throw new Error("the Worker is already running");
    const worker = await startLocalWorker({ ...this.setup, persistDir: this.persistDir });
    this.#running = worker;
    // One attempt per request: a retried request would hide its failure and inflate its time.
    return new ArchiveClient({ url: worker.url, token: worker.token, attempts: 1 });
  }

  async stop(): Promise<void> {
    const running = this.#running;
    this.#running = null;
    await running?.stop();
  }
}
