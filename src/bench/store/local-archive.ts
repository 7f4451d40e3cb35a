/**
 * A private, throwaway archive for the store bench: the project's own Worker
 * (wrangler.toml, `PageStore` and all) started in this process through
 * wrangler's programmatic API (`unstable_startWorker`), on Miniflare/workerd,
 * with a fresh temporary persistence directory, a free port and a random
 * write token. Nothing is shared with `npm start` or with another bench run,
 * and `.dev.vars` is neither needed nor read for the token (the binding given
 * here wins).
 *
 * Two things keep a long run stable and about storage alone:
 *
 * - The Worker is bundled from a snapshot of the tree (wrangler.toml,
 *   package.json, tsconfig.json, src/, workers/, durable-objects/; node_modules
 *   linked) taken when the archive starts. Wrangler's dev bundler watches
 *   every source file whatever `watch` says, and an edit anywhere would
 *   restart workerd and fail the request in flight ("Your worker restarted
 *   mid-request"); a snapshot nobody edits never reloads.
 * - The tiered cache is switched off (`TOPOLOGY.enabled = false`, the
 *   benchmarks' no-tier scenario), so every read goes to the origin: the read
 *   cost and latency measured are the storage layout's, not a cache's.
 *
 * @example
 * const archive = await startLocalArchive();
 * try {
 *   const client = new ArchiveClient({ url: archive.url, token: archive.token });
 *   // ...
 * } finally {
 *   await archive.dispose();
 * }
 */
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_readConfig, unstable_startWorker } from "wrangler";
import { TOKEN_VAR } from "../../cli/dev-token.ts";

/** The repository root (this file is src/bench/store/local-archive.ts). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** What the Worker's bundle is built from; everything else stays out of the snapshot. */
const SNAPSHOT_FILES = ["wrangler.toml", "package.json", "tsconfig.json"] as const;
const SNAPSHOT_DIRS = ["src", "workers", "durable-objects"] as const;

export interface LocalArchive {
  /** Base URL, e.g. `http://127.0.0.1:41234`, no trailing slash. */
  url: string;
  /** A write-scope token the Worker accepts. */
  token: string;
  dispose(): Promise<void>;
}

function snapshotTree(into: string): string {
  mkdirSync(into, { recursive: true });
  for (const file of SNAPSHOT_FILES) if (existsSync(join(REPO_ROOT, file))) cpSync(join(REPO_ROOT, file), join(into, file));
  for (const dir of SNAPSHOT_DIRS) cpSync(join(REPO_ROOT, dir), join(into, dir), { recursive: true });
  symlinkSync(join(REPO_ROOT, "node_modules"), join(into, "node_modules"), "dir");
  return join(into, "wrangler.toml");
}

/** `TOPOLOGY` from the config with the tiers switched off, if the config has one. */
function tiersOff(configPath: string): Record<string, { type: "json"; value: unknown }> {
  const topology = (unstable_readConfig({ config: configPath }, { hideWarnings: true }).vars as Record<string, unknown>).TOPOLOGY;
  if (typeof topology !== "object" || topology === null) return {};
  return { TOPOLOGY: { type: "json", value: { ...topology, enabled: false } } };
}

export async function startLocalArchive(): Promise<LocalArchive> {
  // Miniflare would otherwise try to download the `Request.cf` object from the internet.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
  // The snapshot's wrangler.toml never changes; no need to watch it.
  process.env.WRANGLER_CI_DISABLE_CONFIG_WATCHING ??= "true";
  const workDir = mkdtempSync(join(tmpdir(), "palimpsest-bench-store-"));
  const token = `pal_bench_${randomBytes(24).toString("base64url")}`;
  let worker: Awaited<ReturnType<typeof unstable_startWorker>> | undefined;
  try {
    const config = snapshotTree(join(workDir, "worker"));
    worker = await unstable_startWorker({
      config,
      bindings: { [TOKEN_VAR]: { type: "secret_text", value: token }, ...tiersOff(config) },
      sendMetrics: false,
      dev: {
        remote: false,
        persist: join(workDir, "state"),
        server: { hostname: "127.0.0.1", port: 0 },
        inspector: false,
        watch: false,
        liveReload: false,
        logLevel: (process.env.PALIMPSEST_BENCH_LOG_LEVEL as "debug" | undefined) ?? "warn",
      },
    });
    await worker.ready;
    const url = (await worker.url).origin;
    const running = worker;
    return {
      url,
      token,
      async dispose() {
        try {
          await running.dispose();
        } finally {
          rmSync(workDir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    await worker?.dispose().catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
    throw err;
  }
}
