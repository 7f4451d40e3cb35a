/**
 * `palimpsest dev` (what `npm start` runs): a working archive on
 * http://localhost:8787 on Miniflare's embedded storage. It makes the local
 * write token if needed, then runs `wrangler dev` in the foreground.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import type { Command } from "commander";
import { ensureDevToken } from "../dev-token.ts";
import { seedDemo, waitForArchive } from "../seed-demo.ts";
import { UsageError, parseIntOption } from "../output.ts";

interface DevFlags {
  port: number;
  demo: boolean;
  var: string[];
}

/** `NAME=VALUE` → wrangler's `NAME:VALUE`; a `[vars]` setting for this run only. */
function parseVar(value: string, previous: string[]): string[] {
  const m = /^([A-Z][A-Z0-9_]*)=(.*)$/s.exec(value);
  if (!m) throw new UsageError(`--var takes NAME=VALUE (an upper-case [vars] name), got "${value}"`);
  return [...previous, `${m[1]}:${m[2]}`];
}

function wranglerBin(): string {
  const require = createRequire(import.meta.url);
  return require.resolve("wrangler/bin/wrangler.js");
}

async function dev(flags: DevFlags): Promise<void> {
  const { token, created } = ensureDevToken();
  if (created) process.stderr.write("palimpsest: created a local write token in .dev.vars\n");
  // Development mode trusts the x-palimpsest-colo header, so one workerd plays every colo.
  const vars = ["ENVIRONMENT:development", ...flags.var].flatMap((v) => ["--var", v]);
  const child = spawn(process.execPath, [wranglerBin(), "dev", "--port", String(flags.port), "--ip", "127.0.0.1", ...vars], {
    stdio: "inherit",
  });
  if (flags.demo) {
    const url = `http://localhost:${flags.port}`;
    waitForArchive(url)
      .then(() => seedDemo(url, token))
      .then((pages) => {
        if (pages.length > 0) process.stderr.write(`palimpsest: demo pages ready: ${pages.map((p) => `${url}/page/${p}`).join("  ")}\n`);
      })
      .catch((err: Error) => process.stderr.write(`palimpsest: could not seed demo pages: ${err.message}\n`));
  }
  let stopping = false;
  const forward = (signal: NodeJS.Signals) => {
    stopping = true;
    child.kill(signal);
  };
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  const code = await new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (c, signal) => resolve(c ?? (signal ? 0 : 1)));
  });
  if (code !== 0 && !stopping) throw new UsageError(`wrangler dev exited with code ${code}`);
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
