/**
 * A standing `palimpsest follow --interval S` as a child process, to be
 * killed as an operator's machine kills it: its pass lines (one JSON line
 * per pass on stdout) collected, its cursor file read as it moves, SIGKILL
 * at a chosen moment.
 *
 * @example
 * const follower = startFollower(cliArgs, scratch, cursorFile);
 * await follower.waitForCursor((c) => c.rcid > before);   // it is storing this round's changes
 * await follower.kill("SIGKILL");
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../../../../src/tools/local/local-worker.ts";

const CLI = join(REPO_ROOT, "src/tools/cli/palimpsest.js");

/** `palimpsest follow`'s arguments: follow `wikiApi` into `archive`, keeping its place in the file `cursor`. */
export function followArgs(
  wikiApi: string,
  archive: { url: string; token: string },
  cursor: string,
  ...extra: string[]
): string[] {
  return ["follow", wikiApi, "--url", archive.url, "--token", archive.token, "--cursor", cursor, ...extra];
}

export interface CursorFile {
  wiki: string;
  timestamp: string;
  rcid: number;
}

/** One pass's line on stdout. */
export interface PassLine {
  changes: number;
  pages: number;
  revisions: number;
  refused: number;
  skippedPages: number;
  cursor: string | null;
  rcid: number | null;
  seconds: number;
}

export function readCursor(file: string): CursorFile | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as CursorFile;
  } catch {
    return null; // not written yet (or mid-rename: the next poll sees it)
  }
}

export interface StandingFollower {
  passes: PassLine[];
  stderr: () => string;
  /** Resolves once the cursor file satisfies `ready` (polled every 5 ms); rejects after `timeoutMs` or if the follower exits. */
  waitForCursor(ready: (cursor: CursorFile) => boolean, timeoutMs?: number): Promise<CursorFile>;
  /** Resolves with the first pass line (from now on or already printed) that satisfies `ready`. */
  waitForPass(ready: (pass: PassLine) => boolean, timeoutMs?: number): Promise<PassLine>;
  /** Sends the signal and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `palimpsest <args>` (a `follow … --interval S`) in `cwd`, whose cursor is `cursorFile`. */
export function startFollower(args: string[], cwd: string, cursorFile: string): StandingFollower {
  const env = { ...process.env };
  delete env.PALIMPSEST_TOKEN;
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const passes: PassLine[] = [];
  let stderr = "";
  let partial = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    const lines = (partial + d).split("\n");
    partial = lines.pop()!;
    for (const line of lines) if (line.trim()) passes.push(JSON.parse(line) as PassLine);
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));

  async function poll<T>(what: string, probe: () => T | undefined, timeoutMs: number): Promise<T> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = probe();
      if (found !== undefined) return found;
      if (gone) throw new Error(`the follower exited while waiting for ${what}: ${stderr.slice(-2000)}`);
      if (Date.now() > until) throw new Error(`no ${what} within ${timeoutMs} ms: ${stderr.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  return {
    passes,
    stderr: () => stderr,
    waitForCursor: (ready, timeoutMs = 120_000) =>
      poll(
        "cursor",
        () => {
          const cursor = readCursor(cursorFile);
          return cursor && ready(cursor) ? cursor : undefined;
        },
        timeoutMs,
      ),
    waitForPass: (ready, timeoutMs = 120_000) => poll("pass", () => passes.find(ready), timeoutMs),
    async kill(signal) {
      if (!gone) child.kill(signal);
      return exited;
    },
  };
}
