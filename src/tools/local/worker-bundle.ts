/**
 * The Worker bundled exactly as `wrangler deploy` bundles it
 * (`wrangler deploy --dry-run --outdir`), for local Workers that must not
 * restart mid-run. Wrangler's dev bundler watches the sources and even
 * node_modules/ whatever `watch` says, so an edit elsewhere in the tree
 * restarts workerd and fails the requests in flight ("Your worker restarted
 * mid-request"); a finished bundle nobody edits never reloads. Bundle once
 * per run and start as many Workers from it as needed.
 *
 * `root` bundles another checkout's Worker instead (a folder holding its
 * wrangler.toml, sources and node_modules), so a bench can measure an older
 * Worker with today's harness; the Workers started from that bundle take that
 * checkout's wrangler.toml too (`config`).
 *
 * @example
 * const bundle = await bundleWorker();
 * try {
 *   const worker = await startLocalWorker({ bundle });
 * } finally {
 *   bundle.dispose();
 * }
 */
import { execFile } from "node:child_process";
import { errorMessage } from "../../lib/errors.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT, WRANGLER_CONFIG } from "./local-worker.ts";

export interface WorkerBundle {
  /** The directory holding the entry module and its additional modules (.wasm). */
  dir: string;
  entry: string;
  /** The wrangler.toml the Worker was bundled with, and runs with. */
  config: string;
  dispose(): void;
}

export async function bundleWorker(options: { root?: string } = {}): Promise<WorkerBundle> {
  const root = options.root ?? REPO_ROOT;
  const config = options.root === undefined ? WRANGLER_CONFIG : join(root, "wrangler.toml");
  const dir = mkdtempSync(join(tmpdir(), "palimpsest-bundle-"));
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  const wrangler = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
  try {
    await promisify(execFile)(
      process.execPath,
      [wrangler, "deploy", "--dry-run", "--outdir", dir, "--config", config],
      {
        cwd: root,
        env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
        maxBuffer: 16 << 20,
      },
    );
  } catch (err) {
    dispose();
    const e = err as Error & { stdout?: string; stderr?: string };
    const output = `${e.stderr ?? ""}${e.stdout ?? ""}`.trim().split("\n").slice(-8).join(" | ");
    throw new Error(`cannot bundle the Worker (wrangler deploy --dry-run): ${output || errorMessage(err)}`);
  }
  return { dir, entry: join(dir, "index.js"), config, dispose };
}
