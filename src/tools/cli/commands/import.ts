/**
 * `palimpsest import FILE`: streams a MediaWiki XML export (0.10/0.11; plain,
 * .gz, .br or .bz2) into the archive through the write API: several pages at
 * once (src/tools/import/import-pool.ts), each page's revisions in as few
 * batches as the limits allow, one after another (page-writer.ts), with
 * retries, progress and a summary. Re-running resumes: revisions the archive
 * already holds are skipped.
 *
 * @example
 * npx palimpsest import ../shared/corpus/histories/bip-0340.xml.br --concurrency 6
 */
import { stat } from "node:fs/promises";
import { Command, Option } from "commander";
import { LIMITS } from "../../../limits.ts";
import { runLimited } from "../../../lib/run-limited.ts";
import { decodeUtf8, readMediaWikiExport, type RevisionProblem } from "../../import/mediawiki-reader.ts";
import { ImportPool } from "../../import/import-pool.ts";
import { importProgress } from "../../import/import-progress.ts";
import { ExportReadError, readExport } from "../../import/open-export.ts";
import type { Batching } from "../../import/page-writer.ts";
import { ArchiveClient } from "../../local/archive-client.ts";
import { readDevToken } from "../../local/dev-token.ts";
import { UsageError, parseIntOption } from "../../local/output.ts";

interface ImportFlags {
  url: string;
  token?: string;
  onError: "skip" | "stop";
  batchRevisions: number;
  /**
   * Bytes of revision text held at once by all pages in flight, and request body bytes per batch at most;
   * unset: LIMITS.importer.heldBytes, or less if the archive takes less.
   */
  batchBytes?: number;
  /** Pages written at once. */
  concurrency: number;
  progress: boolean;
  /** Without a terminal, seconds between progress lines. */
  progressInterval: number;
}

/** Pages in flight by default (docs/development.md has what each setting measured). */
const DEFAULT_CONCURRENCY = 6;

/**
 * How big a request may be: what the archive advertises (an archive that does not is an error,
 * src/tools/local/archive-client.ts). A --batch-bytes it cannot take is a usage error.
 */
async function batchingFor(client: ArchiveClient, flags: ImportFlags): Promise<Batching> {
  const { maxRequestBytes } = await client.limits();
  if (flags.batchBytes !== undefined && flags.batchBytes > maxRequestBytes) {
    throw new UsageError(
      `--batch-bytes ${flags.batchBytes} is more than the archive accepts: the archive's storage.maxRequestBytes is ${maxRequestBytes} bytes`,
    );
  }
  return {
    revisions: flags.batchRevisions,
    bytes: flags.batchBytes ?? Math.min(LIMITS.importer.heldBytes, maxRequestBytes),
    maxRequestBytes,
  };
}

function writeToken(flags: ImportFlags): string {
  const token = flags.token ?? process.env.PALIMPSEST_TOKEN ?? readDevToken();
  if (!token)
    throw new UsageError(
      "no write token: pass --token, set PALIMPSEST_TOKEN, or run npm start once to create .dev.vars",
    );
  return token;
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
}

/** What the archive now stores for the imported pages: live blobs and SQLite. */
async function storedBytes(client: ArchiveClient, pages: Iterable<string>, concurrency: number): Promise<number> {
  let stored = 0;
  await runLimited([...pages], concurrency, async (key) => {
    const s = await client.stats(key);
    stored += s.blobBytes + s.metadataBytes;
  });
  return stored;
}

const perSecond = (n: number, ms: number) => (ms > 0 ? Math.round((n / ms) * 10_000) / 10 : 0);

async function runImport(file: string, flags: ImportFlags): Promise<void> {
  const token = writeToken(flags);
  const size = await fileSize(file);
  const client = new ArchiveClient({ url: flags.url, token });
  let read = 0;
  let pool: ImportPool | undefined;
  const progress = importProgress({
    mode: !flags.progress ? "none" : process.stderr.isTTY ? "bar" : "lines",
    totalBytes: size,
    intervalMs: flags.progressInterval * 1000,
    figures: () => ({
      readBytes: read,
      pages: pool?.counts.pagesDone ?? 0,
      revisions: (pool?.counts.created ?? 0) + (pool?.counts.existing ?? 0),
    }),
  });
  const onProblem = (problem: RevisionProblem) => {
    if (flags.onError === "stop")
      throw new Error(
        problem.textHidden ? `${problem.toString()}; --on-error skip imports the other revisions` : String(problem),
      );
    progress.warn(`skipped ${problem.toString()}`);
    pool!.counts.skipped++;
  };
  const started = Date.now();
  try {
    const batching = await batchingFor(client, flags);
    pool = new ImportPool({
      client,
      batching,
      onError: flags.onError,
      concurrency: flags.concurrency,
      onProblem,
      warn: (line) => progress.warn(line),
      onProgress: () => progress.update(),
    });
    const bytes = readExport(file, (n) => {
      read += n;
      progress.update();
    });
    try {
      for await (const item of readMediaWikiExport(decodeUtf8(bytes))) {
        if (item.kind === "problem") onProblem(item.problem);
        else if (item.kind === "deleted") pool.deletePage(item.page.title);
        else await pool.add(item.revision);
      }
    } catch (err) {
      // The requests in flight finish; then the first failure (this one, or a page's before it) is thrown.
      await pool.close(err);
    }
    await pool.close();
    progress.finish();
  } catch (err) {
    // What was stored stays stored; running the import again carries on from there.
    if (err instanceof ExportReadError) {
      const counts = pool?.counts;
      throw new Error(
        `${err.message}; ${(counts?.created ?? 0) + (counts?.existing ?? 0)} revisions imported so far (importing a complete copy carries on from there)`,
        { cause: err },
      );
    }
    throw err;
  } finally {
    progress.stop();
  }
  const { counts } = pool;
  const stored = await storedBytes(client, counts.pages, flags.concurrency);
  const ms = Date.now() - started;
  const revisions = counts.created + counts.existing;
  const line = {
    pages: counts.pages.size,
    revisions,
    created: counts.created,
    already_stored: counts.existing,
    skipped: counts.skipped,
    warnings: counts.warnings,
    raw_bytes: counts.rawBytes,
    stored_bytes: stored,
    seconds: Math.round(ms / 100) / 10,
    pages_per_s: perSecond(counts.pages.size, ms),
    revisions_per_s: perSecond(revisions, ms),
    concurrency: flags.concurrency,
    /** Most revision text the import held at once, in bytes (measured: src/tools/import/held-text.ts). */
    peak_held_bytes: pool.held.peak,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

export function registerImportCommand(program: Command): void {
  program
    .command("import")
    .description("import a MediaWiki XML export (plain, .gz, .br or .bz2) into the archive")
    .argument("<file>", "the export")
    .option("--url <url>", "archive base URL", "http://localhost:8787")
    .option("--token <token>", "write-scope token (default: $PALIMPSEST_TOKEN, then .dev.vars)")
    .addOption(
      new Option("--on-error <mode>", "on a bad revision: skip it and go on, or stop")
        .choices(["skip", "stop"])
        .default("stop"),
    )
    .option("--batch-revisions <n>", "revisions per request", parseIntOption("batch-revisions", 1, 500), 64)
    .option(
      "--batch-bytes <n>",
      `bytes of revision text held at once by all pages in flight, and request body bytes per batch at most (default: ${LIMITS.importer.heldBytes}, or the archive's storage.maxRequestBytes if less)`,
      parseIntOption("batch-bytes", 1024, Number.MAX_SAFE_INTEGER),
    )
    .option(
      "--concurrency <n>",
      "pages written at once (each page's revisions still go one request after another)",
      parseIntOption("concurrency", 1, LIMITS.importer.maxConcurrency),
      DEFAULT_CONCURRENCY,
    )
    .option("--no-progress", "no progress bar, and no progress lines")
    .option(
      "--progress-interval <seconds>",
      "without a terminal, seconds between progress lines on stderr",
      parseIntOption("progress-interval", 1, 86_400),
      5,
    )
    .action((file: string, flags: ImportFlags) => runImport(file, flags));
}
