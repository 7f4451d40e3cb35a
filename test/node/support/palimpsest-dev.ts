/**
 * `palimpsest dev` (what `npm start` runs) as a user runs it: a child process
 * in its own process group, in a scratch working directory (its `.dev.vars`),
 * or in the root of a copy of the repository (`checkout`), as `npm start` runs,
 * with `--persist-to` a scratch state directory, so a developer's own
 * `.dev.vars` and `.wrangler/state` are never touched. Its output is kept:
 * the operator token is read from the line it prints, and a failure shows
 * the last lines.
 *
 * @example
 * const dev = await startPalimpsestDev(["--no-demo"]);
 * try {
 *   await fetch(`${dev.url}/page/Vellum`, { headers: { authorization: `Bearer ${dev.token}` } });
 * } finally {
 *   await dev.stop();
 * }
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, freePort, waitForHealthy } from "../../../src/tools/local/local-worker.ts";

export const PALIMPSEST_CLI = join(REPO_ROOT, "src/tools/cli/palimpsest.js");

export interface PalimpsestDev {
  /** `http://localhost:PORT`, as the command prints it. */
  url: string;
  port: number;
  /** The local operator token, read from the command's output. */
  token: string;
  /** Everything the command printed so far. */
  output(): string;
  /** The last lines of its output, for an assertion's message. */
  tail(lines?: number): string;
  /** Stops the whole process group (SIGTERM, then SIGKILL) and removes the scratch directory. */
  stop(): Promise<void>;
}

const TOKEN_LINE = /^palimpsest: .*local operator token.*: (\S+)$/m;

function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => (clearTimeout(timer), resolve(true)));
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // The group is gone already.
  }
}

/**
 * Starts `palimpsest dev --port <free> --persist-to <scratch> ...args` and
 * resolves once `/healthz` answers and, unless `ready` says otherwise, the
 * command has printed that line (e.g. the demo pages being ready).
 */
export async function startPalimpsestDev(
  args: string[] = [],
  options: { ready?: RegExp; timeoutMs?: number; checkout?: string } = {},
): Promise<PalimpsestDev> {
  const timeoutMs = options.timeoutMs ?? 240_000; // seconds alone; minutes beside the corpus round trip and three other servers
  const dir = mkdtempSync(join(tmpdir(), "palimpsest-dev-"));
  const port = await freePort();
  // `checkout`: a copy of the repository to run `npm start` in, as a developer does (its CLI, in its root, its .dev.vars).
  const cli = options.checkout ? join(options.checkout, "src/tools/cli/palimpsest.js") : PALIMPSEST_CLI;
  const child = spawn(
    process.execPath,
    [cli, "dev", "--port", String(port), "--persist-to", join(dir, "state"), ...args],
    {
      cwd: options.checkout ?? dir,
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  // If this test process dies first, the server must not outlive it.
  const onExit = () => killGroup(child, "SIGKILL");
  process.once("exit", onExit);
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const tail = (lines = 40) => out.trimEnd().split("\n").slice(-lines).join("\n");
  const stop = async () => {
    process.off("exit", onExit);
    killGroup(child, "SIGTERM");
    if (!(await exited(child, 10_000))) {
      killGroup(child, "SIGKILL");
      await exited(child, 5_000);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const until = Date.now() + timeoutMs;
    const waitFor = async (what: string, done: () => boolean) => {
      while (!done()) {
        if (child.exitCode !== null)
          throw new Error(`palimpsest dev exited (${child.exitCode}) before ${what}:\n${tail()}`);
        if (Date.now() > until) throw new Error(`palimpsest dev: no ${what} within ${timeoutMs / 1000} s:\n${tail()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await waitFor("operator token line", () => TOKEN_LINE.test(out));
    const token = TOKEN_LINE.exec(out)![1]!;
    const url = `http://localhost:${port}`;
    await waitForHealthy(url, Math.max(1_000, until - Date.now()));
    if (options.ready) await waitFor(`line matching ${options.ready}`, () => options.ready!.test(out));
    return { url, port, token, output: () => out, tail, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
