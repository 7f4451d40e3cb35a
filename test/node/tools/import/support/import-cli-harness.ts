/**
 * What the `palimpsest import` black-box tests share: a local archive (a real
 * Worker, fresh storage, a random write token), a scratch directory for
 * exports, the CLI run as a user runs it, and reads of what it stored.
 *
 * @example
 * const h = importHarnessForThisFile(); // at the top of a test file: one Worker for all its tests
 * // or, by hand:
 * const h = await startImportHarness();
 * const file = await h.writeExport("sandbox", exportXml({ pages: [{ title: "Sandbox", revisions: generateHistory(3) }] }), "gz");
 * summaryOf(await h.runImport(file)); // { pages: 1, revisions: 3, created: 3, … }
 * await h.stop();
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { expect } from "vitest";
import { forThisFile } from "../../../support/for-this-file.ts";
import { mediaWikiSha1 } from "../../../support/mediawiki-export.ts";
import type { RevisionMeta } from "../../../../../src/page/types.ts";
import { commandMissing } from "../../../support/requirements.ts";
import { REPO_ROOT, startLocalWorker, type LocalWorker } from "../../../../../src/tools/local/local-worker.ts";

const CLI = join(REPO_ROOT, "src/tools/cli/palimpsest.js");
/** Far longer than any import here takes (2–10 s) even on a loaded CI machine, and shorter than the tests' timeouts, so a hang fails with its stderr. */
const CLI_WATCHDOG_MS = 55_000;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** The CLI process's peak resident set, in bytes, when asked for (`peakRss: true`). */
  peakRss?: number;
}

export interface ImportSummary {
  pages: number;
  revisions: number;
  created: number;
  already_stored: number;
  skipped: number;
  /** Revisions stored with a warning (dated before their parent), each named on stderr. */
  warnings: number;
  raw_bytes: number;
  stored_bytes: number;
  seconds: number;
  pages_per_s: number;
  revisions_per_s: number;
  /** Pages written at once (--concurrency). */
  concurrency: number;
  /** Most revision text the import held at once, in bytes. */
  peak_held_bytes: number;
}

/**
 * A history entry as the archive's JSON lists it: the fields the import tests
 * read (a suppressed revision's has no sha1 or bytes).
 */
export type HistoryEntry = Pick<
  RevisionMeta,
  "id" | "parentId" | "timestamp" | "contributor" | "comment" | "suppressed" | "sha1" | "bytes"
>;

/** The ids of `revisions` (in export order), newest first, as a history lists them. */
export const newestFirst = (revisions: readonly { id: number }[]): number[] => revisions.map((r) => r.id).reverse();

export type Compression = "plain" | "gz" | "br" | "bz2";

/** Null when the `bzip2` command is there to make .bz2 exports; else why not (test/node/support/requirements.ts). */
export const NO_BZIP2 = commandMissing("bzip2", ["--help"]);

export function summaryOf(result: CliResult): ImportSummary {
  expect(result.code, `import failed: ${result.stderr}`).toBe(0);
  const lines = result.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  const summary = JSON.parse(lines[0]!) as ImportSummary;
  expect(Object.keys(summary)).toEqual([
    "pages",
    "revisions",
    "created",
    "already_stored",
    "skipped",
    "warnings",
    "raw_bytes",
    "stored_bytes",
    "seconds",
    "pages_per_s",
    "revisions_per_s",
    "concurrency",
    "peak_held_bytes",
  ]);
  expect(summary.seconds).toBeGreaterThanOrEqual(0);
  expect(summary.pages_per_s).toBeGreaterThanOrEqual(0);
  expect(summary.revisions_per_s).toBeGreaterThanOrEqual(0);
  return summary;
}

/** stderr of a failed run: exactly one `palimpsest: …` line. */
export function oneLineReason(result: CliResult): string {
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe("");
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^palimpsest: \S/);
  return lines[0]!;
}

export const rawBytes = (revs: Array<{ text: string }>) => revs.reduce((n, r) => n + Buffer.byteLength(r.text), 0);

/** The summary of an import of `revs` into pages that held none of them: every revision read is created. */
export const freshImport = (revs: Array<{ text: string }>, pages = 1) => ({
  pages,
  revisions: revs.length,
  created: revs.length,
  already_stored: 0,
  skipped: 0,
  raw_bytes: rawBytes(revs),
});

const keyOf = (title: string) => encodeURIComponent(title.replace(/ /g, "_"));

/** A CLI run under way: its result once it exits, and a way to end it early. */
export interface CliRun {
  result: Promise<CliResult>;
  /** Sends the process a signal (SIGKILL: as if the machine went away); `result` still resolves. */
  kill(signal: NodeJS.Signals): void;
  /** Whether the process has exited. */
  exited(): boolean;
}

export interface ImportHarness {
  archive: LocalWorker;
  scratch: string;
  /** Runs the CLI (never synchronously: the Worker's dev proxy lives in this process's event loop). */
  /** `watchdogMs`: how long a run may take before it is killed and fails (default CLI_WATCHDOG_MS). */
  runCli(args: string[], options?: { peakRss?: boolean; watchdogMs?: number }): Promise<CliResult>;
  /** Starts the CLI and returns at once, so a test can act while it runs. */
  startCli(args: string[], options?: { peakRss?: boolean; watchdogMs?: number }): CliRun;
  /** `palimpsest import FILE`'s arguments against the local archive (or `url`), with its token and no progress bar. */
  importArgs(file: string, extra?: string[], url?: string): string[];
  /** `palimpsest import FILE` against the local archive (or `url`), with its token and no progress bar. */
  runImport(
    file: string,
    extra?: string[],
    options?: { peakRss?: boolean; url?: string; watchdogMs?: number },
  ): Promise<CliResult>;
  /** Writes an export to the scratch directory, compressed as asked; returns its path. */
  writeExport(name: string, xml: string, compression?: Compression): Promise<string>;
  /** The page's history, newest first, or null if the archive has no such page. */
  history(title: string): Promise<HistoryEntry[] | null>;
  /** The ids of the page's history, newest first; the page must exist. */
  historyIds(title: string): Promise<number[]>;
  readRevision(title: string, id: number): Promise<Response>;
  /** Every revision reads back byte-exact, with the SHA-1 the export states. */
  expectReadsBack(title: string, revisions: Array<{ id: number; text: string; sha1?: string | null }>): Promise<void>;
  stop(): Promise<void>;
}

export async function startImportHarness(): Promise<ImportHarness> {
  const scratch = await mkdtemp(join(tmpdir(), "palimpsest-import-test-"));
  const archive = await startLocalWorker();
  // Preloaded into the CLI when asked: writes the process's peak RSS (getrusage) as it exits, whatever the exit code.
  const rssHook = join(scratch, "peak-rss-hook.mjs");
  await writeFile(
    rssHook,
    `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(process.env.PALIMPSEST_TEST_RSS_FILE, String(process.resourceUsage().maxRSS * 1024)));\n`,
  );
  let runs = 0;

  const startCli: ImportHarness["startCli"] = (args, options = {}) => {
    const started = Date.now();
    const env = { ...process.env };
    delete env.PALIMPSEST_TOKEN;
    const rssFile = join(scratch, `peak-rss-${++runs}.txt`);
    const node = options.peakRss ? ["--import", rssHook] : [];
    if (options.peakRss) env.PALIMPSEST_TEST_RSS_FILE = rssFile;
    // A scratch working directory: no .dev.vars to fall back on.
    const child = spawn(process.execPath, [...node, CLI, ...args], {
      cwd: scratch,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const result = new Promise<CliResult>((resolve, reject) => {
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      // A run that hangs fails with what it printed, well inside the test's own timeout.
      const watchdogMs = options.watchdogMs ?? CLI_WATCHDOG_MS;
      const watchdog = setTimeout(() => {
        child.kill("SIGKILL");
        reject(
          new Error(
            `palimpsest ${args.join(" ")} still running after ${watchdogMs} ms; killed. stderr so far: ${stderr.slice(-2000)}`,
          ),
        );
      }, watchdogMs);
      child.on("error", (err) => {
        clearTimeout(watchdog);
        reject(err);
      });
      child.on("close", (code) => {
        clearTimeout(watchdog);
        const outcome: CliResult = { code, stdout, stderr, ms: Date.now() - started };
        if (!options.peakRss) return resolve(outcome);
        readFile(rssFile, "utf8").then(
          (text) => resolve({ ...outcome, peakRss: Number(text) }),
          () =>
            reject(new Error(`the CLI died without reporting its peak RSS (exit ${code}): ${stderr.slice(0, 500)}`)),
        );
      });
    });
    return {
      result,
      kill: (signal) => child.kill(signal),
      exited: () => child.exitCode !== null || child.signalCode !== null,
    };
  };

  const importArgs: ImportHarness["importArgs"] = (file, extra = [], url = archive.url) => [
    "import",
    file,
    "--url",
    url,
    "--token",
    archive.token,
    "--no-progress",
    ...extra,
  ];

  const history = async (title: string): Promise<HistoryEntry[] | null> => {
    const res = await fetch(`${archive.url}/page/${keyOf(title)}/history?limit=500`);
    if (res.status === 404) return null;
    expect(res.status).toBe(200);
    return (await res.json<{ revisions: HistoryEntry[] }>()).revisions;
  };

  const readRevision = (title: string, id: number) => fetch(`${archive.url}/page/${keyOf(title)}/${id}`);

  return {
    archive,
    scratch,
    runCli: (args, options) => startCli(args, options).result,
    startCli,
    importArgs,
    runImport: (file, extra = [], options = {}) => startCli(importArgs(file, extra, options.url), options).result,
    async writeExport(name, xml, compression = "plain") {
      const plain = join(scratch, `${name}.xml`);
      await writeFile(plain, xml);
      switch (compression) {
        case "plain":
          return plain;
        case "gz":
          await writeFile(`${plain}.gz`, gzipSync(xml));
          return `${plain}.gz`;
        case "br":
          await writeFile(`${plain}.br`, brotliCompressSync(xml));
          return `${plain}.br`;
        case "bz2":
          await promisify(execFile)("bzip2", ["-k", "-f", "-9", plain]);
          return `${plain}.bz2`;
      }
    },
    history,
    async historyIds(title) {
      const listed = await history(title);
      expect(listed, `history of ${title}`).not.toBeNull();
      return listed!.map((r) => r.id);
    },
    readRevision,
    async expectReadsBack(title, revisions) {
      const pending = [...revisions];
      const worker = async () => {
        for (let rev = pending.shift(); rev; rev = pending.shift()) {
          const res = await readRevision(title, rev.id);
          expect(res.status, `GET revision ${rev.id}`).toBe(200);
          expect(res.headers.get("x-revision-id")).toBe(String(rev.id));
          const body = new Uint8Array(await res.arrayBuffer());
          const expected = rev.sha1 ?? mediaWikiSha1(rev.text);
          expect(mediaWikiSha1(body), `SHA-1 of revision ${rev.id}`).toBe(expected);
          expect(Buffer.from(body).equals(Buffer.from(rev.text)), `bytes of revision ${rev.id}`).toBe(true);
        }
      };
      await Promise.all(Array.from({ length: 6 }, worker));
    },
    async stop() {
      await archive.stop();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * One harness for the calling test file, started before its first test and
 * stopped after its last: a Worker takes seconds to start, so the tests of a
 * file share one, each on its own pages. Use the result only inside tests.
 */
export function importHarnessForThisFile(): ImportHarness {
  return forThisFile("the import harness", startImportHarness);
}
