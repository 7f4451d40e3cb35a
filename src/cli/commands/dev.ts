/**
 * `palimpsest dev` (what `npm start` runs): a working archive on
 * http://localhost:8787 on Miniflare's embedded storage (`.wrangler/state`,
 * kept between runs). It makes the local write token if needed, starts the
 * Worker in development mode with live reload (src/local/local-worker.ts),
 * seeds the demo pages and serves until interrupted.
 */
import { join } from "node:path";
import type { Command } from "commander";
import { ensureDevToken } from "../../local/dev-token.ts";
import { REPO_ROOT, startLocalWorker } from "../../local/local-worker.ts";
import { logLine, UsageError, parseIntOption } from "../../local/output.ts";
import { seedDemo } from "../seed-demo.ts";

interface DevFlags {
  port: number;
  demo: boolean;
  var: Array<[string, string]>;
}

/** `NAME=VALUE`: a `[vars]` setting for this run only. */
function parseVar(value: string, previous: Array<[string, string]>): Array<[string, string]> {
  const m = /^([A-Z][A-Z0-9_]*)=(.*)$/s.exec(value);
  if (!m) throw new UsageError(`--var takes NAME=VALUE (an upper-case [vars] name), got "${value}"`);
  return [...previous, [m[1]!, m[2]!]];
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}

async function seed(url: string, token: string): Promise<void> {
  try {
    const pages = await seedDemo(url, token);
    if (pages.length > 0) logLine(`palimpsest: demo pages ready: ${pages.map((p) => `${url}/page/${p}`).join("  ")}`);
  } catch (err) {
    logLine(`palimpsest: could not seed demo pages: ${(err as Error).message}`);
  }
}

async function dev(flags: DevFlags): Promise<void> {
  const { token, created, file } = ensureDevToken();
  logLine(`palimpsest: ${created ? "created a" : "using the"} local operator token (write and purge scopes) in ${file}: ${token}`);
  const worker = await startLocalWorker({
    port: flags.port,
    token,
    // Development mode trusts the x-palimpsest-colo header, so one workerd plays every colo.
    vars: Object.fromEntries([["ENVIRONMENT", "development"], ...flags.var]),
    persistDir: join(REPO_ROOT, ".wrangler", "state"),
    developer: true,
    logLevel: "log",
  });
  const url = `http://localhost:${flags.port}`;
  logLine(`palimpsest: serving the archive at ${url} (Ctrl-C stops it); operators: ${url}/dashboard`);
  if (flags.demo) await seed(url, token);
  await untilSignal();
  await worker.stop();
}

export function registerDevCommand(program: Command): void {
  program
    .command("dev")
    .description("serve a local archive on http://localhost:8787 (what npm start runs)")
    .option("--port <n>", "port", parseIntOption("port", 1, 65535), 8787)
    .option("--no-demo", "do not seed the generated demo pages")
    .option("--var <NAME=VALUE>", "override a [vars] setting for this run (repeatable), e.g. --var ORPHAN_GRACE_SECONDS=5", parseVar, [])
    .action((flags: DevFlags) => dev(flags));
}
