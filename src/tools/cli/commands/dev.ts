/**
 * `palimpsest dev` (what `npm start` runs): a working archive on
 * http://localhost:8787 on Miniflare's embedded storage (`.wrangler/state`,
 * kept between runs, or `--persist-to DIR`). It makes the local operator token
 * in the current directory's `.dev.vars` if needed, starts the
 * Worker in development mode with live reload (src/tools/local/local-worker.ts),
 * seeds the demo pages and serves until interrupted.
 */
import { join, resolve } from "node:path";
import { errorMessage } from "../../../lib/errors.ts";
import type { Command } from "commander";
import { ensureDevToken } from "../../local/dev-token.ts";
import { REPO_ROOT, startLocalWorker } from "../../local/local-worker.ts";
import { logLine, UsageError, parseIntOption } from "../../local/output.ts";
import { seedDemo } from "../../local/seed-demo.ts";

interface DevFlags {
  port: number;
  demo: boolean;
  persistTo?: string;
  var: Array<[string, unknown]>;
}

/** `NAME=VALUE`: a `[vars]` setting for this run only; a JSON object (`TOPOLOGY={…}`) is passed as JSON, anything else as text. */
function parseVar(value: string, previous: Array<[string, unknown]>): Array<[string, unknown]> {
  const m = /^([A-Z][A-Z0-9_]*)=(.*)$/s.exec(value);
  if (!m) throw new UsageError(`--var takes NAME=VALUE (an upper-case [vars] name), got "${value}"`);
  const text = m[2]!;
  if (!text.trimStart().startsWith("{")) return [...previous, [m[1]!, text]];
  try {
    return [...previous, [m[1]!, JSON.parse(text) as unknown]];
  } catch (err) {
    throw new UsageError(`--var ${m[1]} starts with "{" but is not JSON: ${errorMessage(err)}`);
  }
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
    logLine(`palimpsest: could not seed demo pages: ${errorMessage(err)}`);
  }
}

async function dev(flags: DevFlags): Promise<void> {
  const { token, created, file } = ensureDevToken();
  logLine(
    `palimpsest: ${created ? "created a" : "using the"} local operator token (write and purge scopes) in ${file}: ${token}`,
  );
  const url = `http://localhost:${flags.port}`;
  const worker = await startLocalWorker({
    port: flags.port,
    token,
    // Development mode trusts the x-palimpsest-colo header, so one workerd plays every colo. PUBLIC_ORIGIN is
    // the address announced below, so `--var ENVIRONMENT=production` serves it as a deployment would.
    vars: Object.fromEntries([["ENVIRONMENT", "development"], ["PUBLIC_ORIGIN", url], ...flags.var]),
    persistDir: flags.persistTo === undefined ? join(REPO_ROOT, ".wrangler", "state") : resolve(flags.persistTo),
    developer: true,
    logLevel: "log",
  });
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
    .option("--persist-to <dir>", "keep storage in this directory instead of .wrangler/state")
    .option(
      "--var <NAME=VALUE>",
      "override a [vars] setting for this run (repeatable; a JSON object is passed as JSON), e.g. --var ORPHAN_GRACE_SECONDS=5",
      parseVar,
      [],
    )
    .action((flags: DevFlags) => dev(flags));
}
