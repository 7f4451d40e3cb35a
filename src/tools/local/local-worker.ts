/**
 * The one way to run the archive Worker locally: wrangler's dev server
 * (`unstable_startWorker`, Miniflare/workerd) in this process, answering
 * `/healthz` before it is handed over. `palimpsest dev`, the benches and the
 * Node tests all start it here.
 *
 * By default each Worker is private and throwaway: a free port, a fresh
 * temporary state directory (removed by `stop()`), a random write token and
 * no `.dev.vars`. `palimpsest dev` asks instead for a fixed port, the
 * developer's `.wrangler/state`, `.dev.vars` and live reload.
 *
 * @example
 * const worker = await startLocalWorker({ vars: { ENVIRONMENT: "development" } });
 * try {
 *   await fetch(`${worker.url}/page/Vellum`);
 * } finally {
 *   await worker.stop();
 * }
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Unstable_Config, unstable_startWorker } from "wrangler";
import { sleep } from "../../lib/backoff.ts";
import { operatorTokens, TOKEN_VAR, type ApiToken } from "./dev-token.ts";
import type { WorkerBundle } from "./worker-bundle.ts";

/** The repository root (this file is src/tools/local/local-worker.ts). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const WRANGLER_CONFIG = join(REPO_ROOT, "wrangler.toml");
/** Linux's memory file system, for throwaway state that must not wait on a disk. */
const MEMORY_FS = "/dev/shm";
/** Free space a simulation's state may need there; with less (a container's 64 MiB default), the disk it is. */
const MEMORY_FS_MIN_FREE_BYTES = 1024 * 1024 * 1024;

function stateRoot(): string {
  try {
    const { bavail, bsize } = statfsSync(MEMORY_FS);
    return bavail * bsize >= MEMORY_FS_MIN_FREE_BYTES ? MEMORY_FS : tmpdir();
  } catch {
    return tmpdir();
  }
}

type LogLevel = "none" | "error" | "warn" | "info" | "log" | "debug";

export interface LocalWorkerOptions {
  /** Run this finished bundle, which nothing edits mid-run (see worker-bundle.ts); default the sources. */
  bundle?: WorkerBundle;
  /** Default: a free port. */
  port?: number;
  /** The operator token (every scope); default a random one. */
  token?: string;
  /** More named tokens in `API_TOKENS`, after the operator's (e.g. a bench's purge tokens). */
  extraTokens?: readonly ApiToken[];
  /** `[vars]` for this run: strings as plain text, anything else as JSON. */
  vars?: Record<string, unknown>;
  /** Keep storage here across runs; default a fresh temporary directory that `stop()` removes. */
  persistDir?: string;
  /**
   * Make that temporary directory on a memory file system (/dev/shm) where there is one with 1 GiB free. For
   * simulations of many Durable Objects in one workerd: each local SQLite commit syncs to disk on
   * the one thread they all share, a wait production's storage never puts on an isolate.
   */
  memoryState?: boolean;
  /** Load `.dev.vars` and rebuild on edits, as a developer expects; default off. */
  developer?: boolean;
  logLevel?: LogLevel;
}

export interface LocalWorker {
  /** Base URL without a trailing slash: `http://127.0.0.1:PORT`. */
  url: string;
  /** A token carrying the write scope. */
  token: string;
  persistDir: string;
  /** Stops the Worker and removes its state directory unless it was given. */
  stop(): Promise<void>;
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `/healthz` until it answers 200: `ready` can come before the first request is served. */
export async function waitForHealthy(url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const ok = await fetch(`${url}/healthz`).then(
      async (res) => (await res.arrayBuffer(), res.ok),
      () => false,
    );
    if (ok) return;
    if (Date.now() > until)
      throw new Error(`the Worker at ${url} did not answer /healthz within ${timeoutMs / 1000} s`);
    await sleep(Math.min(500, 20 * 2 ** attempt));
  }
}

type Bindings = NonNullable<Parameters<typeof unstable_startWorker>[0]["bindings"]>;

/** The token gets every scope; the session secret lives as long as this worker. */
function bindingsOf(token: string, extraTokens: readonly ApiToken[], vars: Record<string, unknown>): Bindings {
  const bindings: Bindings = {
    [TOKEN_VAR]: { type: "secret_text", value: operatorTokens(token, extraTokens) },
    SESSION_SECRET: { type: "secret_text", value: randomBytes(32).toString("base64url") },
  };
  for (const [name, value] of Object.entries(vars)) {
    bindings[name] = typeof value === "string" ? { type: "plain_text", value } : { type: "json", value };
  }
  return bindings;
}

type StartInput = Parameters<typeof unstable_startWorker>[0];

/**
 * The Node.js compatibility mode wrangler.toml asks for, as `wrangler dev` and `wrangler deploy` derive it
 * (miniflare's getNodeCompat): `nodejs_compat` with a compatibility date from 2024-09-23 on is "v2".
 * `unstable_startWorker` does not derive it: left out, it bundles as if the flag were off and warns that
 * `node:zlib` needs `nodejs_compat`, though the flag is set: a warning that is not true.
 */
function nodejsCompatMode(config: Unstable_Config): "v2" | "v1" | null {
  if (!config.compatibility_flags.includes("nodejs_compat")) return null;
  return (config.compatibility_date ?? "") >= "2024-09-23" ? "v2" : "v1";
}

function workerInput(o: LocalWorkerOptions, token: string, persist: string, port: number): StartInput {
  return {
    config: o.bundle?.config ?? WRANGLER_CONFIG,
    build: {
      nodejsCompatMode,
      ...(o.bundle ? { bundle: false, findAdditionalModules: true, moduleRoot: o.bundle.dir } : {}),
    },
    ...(o.bundle ? { entrypoint: o.bundle.entry } : {}),
    // Only the bindings given here, unless a developer's .dev.vars is wanted.
    ...(o.developer ? {} : { envFiles: [] }),
    bindings: bindingsOf(token, o.extraTokens ?? [], o.vars ?? {}),
    sendMetrics: false,
    dev: {
      remote: false,
      persist,
      server: { hostname: "127.0.0.1", port },
      inspector: false,
      watch: o.developer ?? false,
      liveReload: false,
      generateTypes: false,
      logLevel: o.logLevel ?? "error",
      // wrangler's /__scheduled route: `GET /__scheduled?cron=*+*+*+*+*` runs the Cron Trigger now.
      testScheduled: true,
    },
  };
}

export async function startLocalWorker(options: LocalWorkerOptions = {}): Promise<LocalWorker> {
  // Miniflare would otherwise download a sample `Request.cf` from the internet.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
  // A throwaway Worker must not restart when someone edits wrangler.toml mid-run.
  if (!options.developer) process.env.WRANGLER_CI_DISABLE_CONFIG_WATCHING ??= "true";
  const persistDir =
    options.persistDir ?? mkdtempSync(join(options.memoryState ? stateRoot() : tmpdir(), "palimpsest-worker-"));
  const removeState = () => rmSync(persistDir, { recursive: true, force: true });
  // A run killed midway (a test's timeout, Ctrl-C) still removes its throwaway state, which may be in memory.
  if (options.persistDir === undefined) process.once("exit", removeState);
  const cleanUp = () => {
    if (options.persistDir !== undefined) return;
    process.off("exit", removeState);
    removeState();
  };
  const token = options.token ?? `pal_local_${randomBytes(24).toString("base64url")}`;
  let worker: Awaited<ReturnType<typeof unstable_startWorker>> | undefined;
  try {
    // Imported here, not above: wrangler takes seconds to load, and every CLI command loads this module.
    const { unstable_startWorker: start } = await import("wrangler");
    const port = options.port ?? (await freePort());
    // Production refuses to serve without PUBLIC_ORIGIN (workers/middleware/deployment-guard.ts): a local Worker's is its own address.
    const vars = { PUBLIC_ORIGIN: `http://127.0.0.1:${port}`, ...options.vars };
    worker = await start(workerInput({ ...options, vars }, token, persistDir, port));
    await worker.ready;
    const url = (await worker.url).origin;
    await waitForHealthy(url);
    const running = worker;
    return { url, token, persistDir, stop: () => running.dispose().finally(cleanUp) };
  } catch (err) {
    await worker?.dispose().catch(() => undefined);
    cleanUp();
    throw err;
  }
}
