/**
 * Starts the archive Worker in-process with wrangler's programmatic API, on
 * a free port, with fresh (temporary) local storage and a random write
 * token, so black-box tests need neither `npm start` nor a `.dev.vars` file.
 *
 * @example
 * const archive = await startLocalArchive();
 * try {
 *   await fetch(`${archive.url}/healthz`);
 * } finally {
 *   await archive.stop();
 * }
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_startWorker } from "wrangler";

export interface LocalArchive {
  /** Base URL, without a trailing slash: `http://127.0.0.1:PORT`. */
  url: string;
  /** A token carrying the write scope (the Worker's WRITE_TOKENS). */
  token: string;
  /** The temporary persistence directory (deleted by stop()). */
  persistDir: string;
  /** Stops the Worker and deletes its storage. */
  stop(): Promise<void>;
}

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

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

export async function startLocalArchive(options: { token?: string } = {}): Promise<LocalArchive> {
  // Miniflare otherwise fetches a sample Request.cf from workers.cloudflare.com; tests stay offline.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
  const token = options.token ?? `pal_test_${randomBytes(18).toString("base64url")}`;
  const persistDir = await mkdtemp(join(tmpdir(), "palimpsest-archive-"));
  const port = await freePort();
  let worker: Awaited<ReturnType<typeof unstable_startWorker>> | undefined;
  try {
    worker = await unstable_startWorker({
      config: join(REPO_ROOT, "wrangler.toml"),
      // Only the token given here; never the developer's .dev.vars.
      envFiles: [],
      bindings: { WRITE_TOKENS: { type: "secret_text", value: token } },
      sendMetrics: false,
      dev: {
        persist: persistDir,
        server: { hostname: "127.0.0.1", port },
        inspector: false,
        watch: false,
        logLevel: "error",
        remote: false,
        generateTypes: false,
      },
    });
    await worker.ready;
    const url = (await worker.url).origin;
    const started = worker;
    return {
      url,
      token,
      persistDir,
      async stop() {
        await started.dispose();
        await rm(persistDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await worker?.dispose().catch(() => undefined);
    await rm(persistDir, { recursive: true, force: true });
    throw err;
  }
}
