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
 * - The Worker is bundled once, up front, exactly as `wrangler deploy` would
 *   bundle it (`wrangler deploy --dry-run --outdir`), and that bundle is
 *   started unbundled. Wrangler's dev bundler runs esbuild in watch mode
 *   whatever `watch` says, and esbuild also watches directory listings such
 *   as node_modules/ (which vitest runs elsewhere keep touching): any change
 *   rebuilt and restarted workerd, failing the write in flight with HTTP 503
 *   "Your worker restarted mid-request". A finished bundle nobody edits never
 *   reloads, and config watching is off (WRANGLER_CI_DISABLE_CONFIG_WATCHING).
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
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { unstable_readConfig, unstable_startWorker } from "wrangler";
import { TOKEN_VAR } from "../../cli/dev-token.ts";

/** The repository's wrangler.toml (this file is src/bench/store/local-archive.ts). */
export const WRANGLER_CONFIG = fileURLToPath(new URL("../../../wrangler.toml", import.meta.url));

export interface LocalArchive {
  /** Base URL, e.g. `http://127.0.0.1:41234`, no trailing slash. */
  url: string;
  /** A write-scope token the Worker accepts. */
  token: string;
  dispose(): Promise<void>;
}

/** Bundles the Worker as `wrangler deploy` does, into `outDir`; returns the entry module. */
async function bundleWorker(outDir: string): Promise<string> {
  const wrangler = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
  try {
    await promisify(execFile)(process.execPath, [wrangler, "deploy", "--dry-run", "--outdir", outDir, "--config", WRANGLER_CONFIG], {
      cwd: join(WRANGLER_CONFIG, ".."),
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      maxBuffer: 16 << 20,
    });
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string };
    throw new Error(`cannot bundle the Worker (wrangler deploy --dry-run): ${`${e.stderr ?? ""}${e.stdout ?? ""}`.trim().split("\n").slice(-8).join(" | ") || e.message}`);
  }
  return join(outDir, "index.js");
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
  // An edit to wrangler.toml mid-run must not restart the Worker (see above).
  process.env.WRANGLER_CI_DISABLE_CONFIG_WATCHING ??= "true";
  const workDir = mkdtempSync(join(tmpdir(), "palimpsest-bench-store-"));
  const token = `pal_bench_${randomBytes(24).toString("base64url")}`;
  let worker: Awaited<ReturnType<typeof unstable_startWorker>> | undefined;
  try {
    const bundleDir = join(workDir, "bundle");
    const entrypoint = await bundleWorker(bundleDir);
    worker = await unstable_startWorker({
      config: WRANGLER_CONFIG,
      entrypoint,
      build: { bundle: false, findAdditionalModules: true, moduleRoot: bundleDir },
      bindings: { [TOKEN_VAR]: { type: "secret_text", value: token }, ENVIRONMENT: { type: "plain_text", value: "development" }, ...tiersOff(WRANGLER_CONFIG) },
      sendMetrics: false,
      dev: {
        remote: false,
        persist: join(workDir, "state"),
        server: { hostname: "127.0.0.1", port: 0 },
        inspector: false,
        watch: false,
        liveReload: false,
        // PALIMPSEST_BENCH_LOG_LEVEL=debug shows wrangler's and workerd's own output when
        // diagnosing a failure (some of it goes to stdout, so not with --json).
        logLevel: (process.env.PALIMPSEST_BENCH_LOG_LEVEL as "debug" | "info" | "log" | undefined) ?? "warn",
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
