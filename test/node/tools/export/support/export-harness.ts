/**
 * What the `palimpsest export` black-box tests share: two local archives (an
 * original and the one a backup is restored into, each a real Worker with
 * fresh storage, from the import tests' harness), the export CLI run as a
 * user runs it (or started to be killed part way), and the write API for
 * setting up what an export must carry (suppressions, tags).
 *
 * @example
 * const { a, b } = twoArchivesForThisFile();
 * const result = await runExport(a(), join(a().scratch, "all.xml"));
 * exportSummaryOf(result); // { pages, revisions, xml_bytes, … }
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { ArchiveClient } from "../../../../../src/tools/local/archive-client.ts";
import { REPO_ROOT } from "../../../../../src/tools/local/local-worker.ts";
import { startImportHarness, type CliResult, type ImportHarness } from "../../import/support/import-cli-harness.ts";

const CLI = join(REPO_ROOT, "src/tools/cli/palimpsest.js");

export interface ExportSummary {
  file: string;
  pages: number;
  revisions: number;
  resumed_pages: number;
  xml_bytes: number;
  file_bytes: number;
  seconds: number;
}

export function exportSummaryOf(result: CliResult): ExportSummary {
  expect(result.code, `export failed: ${result.stderr}`).toBe(0);
  const lines = result.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as ExportSummary;
}

/** `palimpsest export FILE` against the harness's archive, with its operator token (every scope, backup too) unless `token` says otherwise. */
export function runExport(
  h: ImportHarness,
  file: string,
  extra: string[] = [],
  options: { token?: string | null; peakRss?: boolean; watchdogMs?: number } = {},
): Promise<CliResult> {
  const token = options.token === undefined ? h.archive.token : options.token;
  return h.runCli(
    ["export", file, "--url", h.archive.url, ...(token === null ? [] : ["--token", token]), "--no-progress", ...extra],
    {
      peakRss: options.peakRss,
      watchdogMs: options.watchdogMs,
    },
  );
}

/** The export CLI as a child to kill part way; the caller waits for its exit. */
export function startExport(h: ImportHarness, file: string, extra: string[] = []): ChildProcess {
  const env = { ...process.env };
  delete env.PALIMPSEST_TOKEN;
  return spawn(
    process.execPath,
    [CLI, "export", file, "--url", h.archive.url, "--token", h.archive.token, "--no-progress", ...extra],
    { cwd: h.scratch, env, stdio: ["ignore", "pipe", "pipe"] },
  );
}

/** A client of the harness's archive with its operator token. */
export const clientOf = (h: ImportHarness) => new ArchiveClient({ url: h.archive.url, token: h.archive.token });

/**
 * Two archives for the calling test file, started before its first test and
 * stopped after its last: `a` the original, `b` the one restored into.
 */
export function twoArchivesForThisFile(): { a: () => ImportHarness; b: () => ImportHarness } {
  let a: ImportHarness | undefined;
  let b: ImportHarness | undefined;
  beforeAll(async () => {
    [a, b] = await Promise.all([startImportHarness(), startImportHarness()]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });
  const get = (h: ImportHarness | undefined) => {
    if (!h) throw new Error("the archives start in beforeAll: use them inside tests");
    return h;
  };
  return { a: () => get(a), b: () => get(b) };
}
