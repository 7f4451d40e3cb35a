/**
 * A throwaway archive Worker for the tiers bench: the project's own Worker
 * (wrangler.toml with every Durable Object) started in this process through
 * wrangler's programmatic API (`unstable_startWorker`) on Miniflare/workerd,
 * with fresh temporary persistence, a free port, a random write token
 * (`WRITE_TOKENS`) and `TOPOLOGY` overridden per scenario (`enabled`,
 * `purgeDelivery`, `interRegionLatencyMs`; everything else as in
 * wrangler.toml).
 *
 * The Worker is bundled from a snapshot of the tree (wrangler.toml,
 * package.json, tsconfig.json, src/, workers/, durable-objects/; node_modules
 * linked), taken once per bench run with {@link snapshotTree}. Wrangler's dev
 * bundler watches the sources whatever `watch` says, and an edit by someone
 * else mid-run would restart workerd and fail requests in flight; a snapshot
 * nobody edits never reloads, and all scenarios of one run share one tree.
 *
 * @example
 * const tree = snapshotTree();
 * const worker = await startTiersWorker(tree.config, { enabled: true, purgeDelivery: "fanout", interRegionLatencyMs: 40 });
 * try {
 *   await fetch(`${worker.url}/healthz`);
 * } finally {
 *   await worker.dispose();
 *   tree.dispose();
 * }
 */
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_readConfig, unstable_startWorker } from "wrangler";

/** The repository root (this file is src/bench/tiers/local-worker.ts). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const SNAPSHOT_FILES = ["wrangler.toml", "package.json", "tsconfig.json"] as const;
const SNAPSHOT_DIRS = ["src", "workers", "durable-objects"] as const;

/** What a scenario changes in `[vars.TOPOLOGY]`. */
export interface TopologyOverride {
  enabled: boolean;
  purgeDelivery: "fanout" | "direct";
  interRegionLatencyMs: number;
}

/** The parts of `[vars.TOPOLOGY]` the bench reads back. */
export interface TopologyVars extends TopologyOverride {
  upperRegion: string;
  refreshSeconds: number;
  maxStaleSeconds: number;
  queuesPerRegion: number;
  regions: Record<string, { colos: string[]; tiers: Record<string, number> }>;
}

export interface TreeSnapshot {
  /** wrangler.toml inside the snapshot. */
  config: string;
  dispose(): void;
}

export interface TiersWorker {
  /** Base URL, e.g. `http://127.0.0.1:41234`, no trailing slash. */
  url: string;
  /** A write-scope token the Worker accepts. */
  token: string;
  /** The topology the Worker runs with (wrangler.toml's, plus the override). */
  topology: TopologyVars;
  dispose(): Promise<void>;
}

/** `PALIMPSEST_BENCH_WORKER_LOG=warn` (or `log`) shows the Worker's own warnings, e.g. failed purge deliveries. */
function workerLogLevel(): "error" | "warn" | "log" {
  const level = process.env.PALIMPSEST_BENCH_WORKER_LOG;
  return level === "warn" || level === "log" ? level : "error";
}

/** Copies the Worker's sources into a temporary directory (node_modules linked). */
export function snapshotTree(): TreeSnapshot {
  const dir = mkdtempSync(join(tmpdir(), "palimpsest-bench-tiers-tree-"));
  for (const file of SNAPSHOT_FILES) if (existsSync(join(REPO_ROOT, file))) cpSync(join(REPO_ROOT, file), join(dir, file));
  for (const sub of SNAPSHOT_DIRS) cpSync(join(REPO_ROOT, sub), join(dir, sub), { recursive: true });
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return { config: join(dir, "wrangler.toml"), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** wrangler.toml's `[vars.TOPOLOGY]`; throws if there is none. */
export function readTopology(configPath: string): TopologyVars {
  const vars = unstable_readConfig({ config: configPath }, { hideWarnings: true }).vars as Record<string, unknown>;
  const topology = vars.TOPOLOGY;
  if (typeof topology !== "object" || topology === null) throw new Error(`${configPath} has no [vars.TOPOLOGY]`);
  return topology as TopologyVars;
}

export async function startTiersWorker(configPath: string, override: TopologyOverride, opts: { logLevel?: "error" | "warn" | "log" } = {}): Promise<TiersWorker> {
  // Miniflare would otherwise try to download the `Request.cf` object from the internet.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
  // The snapshot's wrangler.toml never changes; no need to watch it.
  process.env.WRANGLER_CI_DISABLE_CONFIG_WATCHING ??= "true";
  const state = mkdtempSync(join(tmpdir(), "palimpsest-bench-tiers-state-"));
  mkdirSync(state, { recursive: true });
  const token = `pal_bench_${randomBytes(24).toString("base64url")}`;
  const topology: TopologyVars = { ...readTopology(configPath), ...override };
  let worker: Awaited<ReturnType<typeof unstable_startWorker>> | undefined;
  try {
    worker = await unstable_startWorker({
      config: configPath,
      // Only the bindings given here; never a developer's .dev.vars or .env.
      envFiles: [],
      bindings: {
        WRITE_TOKENS: { type: "secret_text", value: token },
        ENVIRONMENT: { type: "plain_text", value: "development" },
        TOPOLOGY: { type: "json", value: topology },
      },
      sendMetrics: false,
      dev: {
        remote: false,
        persist: state,
        server: { hostname: "127.0.0.1", port: 0 },
        inspector: false,
        watch: false,
        liveReload: false,
        logLevel: opts.logLevel ?? workerLogLevel(),
      },
    });
    await worker.ready;
    const url = (await worker.url).origin;
    const running = worker;
    return {
      url,
      token,
      topology,
      async dispose() {
        try {
          await running.dispose();
        } finally {
          rmSync(state, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    await worker?.dispose().catch(() => undefined);
    rmSync(state, { recursive: true, force: true });
    throw err;
  }
}
