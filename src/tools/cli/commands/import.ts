/**
 * `palimpsest import FILE`: streams a MediaWiki XML export (0.10/0.11; plain,
 * .gz, .br or .bz2) into the archive through the write API, in batches, with
 * retries, a progress bar and a summary. Re-running resumes: revisions the
 * archive already holds are skipped.
 *
 * @example
 * npx palimpsest import ../shared/corpus/histories/bip-0340.xml.br
 */
import { stat } from "node:fs/promises";
import { Command, Option } from "commander";
import cliProgress from "cli-progress";
import {
  decodeUtf8,
  readMediaWikiExport,
  RevisionProblem,
  type ExportRevision,
} from "../../import/mediawiki-reader.ts";
import { ExportReadError, readExport } from "../../import/open-export.ts";
import { measureRevision, requestBodyBytes, requestBodyStream } from "../../import/request-body.ts";
import { toNewRevision } from "../../import/to-new-revision.ts";
import { normalizeTitle } from "../../../page/title.ts";
import type { NewRevision } from "../../../page/types.ts";
import { ArchiveClient, ArchiveHttpError } from "../../local/archive-client.ts";
import { readDevToken } from "../../local/dev-token.ts";
import { UsageError, parseIntOption } from "../../local/output.ts";

interface ImportFlags {
  url: string;
  token?: string;
  onError: "skip" | "stop";
  batchRevisions: number;
  /** Request body bytes per batch; unset: {@link DEFAULT_BATCH_BYTES}, or less if the archive takes less. */
  batchBytes?: number;
  progress: boolean;
}

const DEFAULT_BATCH_BYTES = 8 * 1024 * 1024;

interface Summary {
  pages: Set<string>;
  created: number;
  existing: number;
  skipped: number;
  /** Revisions the archive stored with a warning (dated before their parent). */
  warnings: number;
  rawBytes: number;
}

class PageImporter {
  #title = "";
  #key = "";
  #batch: NewRevision[] = [];
  /** Each batched revision's bytes of JSON and of text, and the JSON's sum: the request body is sized exactly. */
  #sizes: Array<{ jsonBytes: number; textBytes: number }> = [];
  #jsonBytes = 0;
  /** The current page's id on its wiki (the export's `<page><id>`), kept with the page. */
  #wikiPageId: number | undefined;
  /** Last revision the archive holds for the current page; new revisions chain from it. */
  #lastStored: number | null = null;
  /** While resuming, revisions up to the archive's latest are already stored. */
  #resumeUntil: number | null = null;

  constructor(
    private readonly client: ArchiveClient,
    private readonly batching: { revisions: number; bytes: number; maxRequestBytes: number },
    private readonly flags: ImportFlags,
    private readonly summary: Summary,
    private readonly onProblem: (problem: RevisionProblem) => void,
    private readonly warn: (line: string) => void,
  ) {}

  async add(rev: ExportRevision): Promise<void> {
    if (rev.title !== this.#title) await this.#startPage(rev.title);
    this.#wikiPageId = rev.wikiPageId;
    if (this.#resumeUntil !== null) {
      this.summary.existing++;
      if (rev.id === this.#resumeUntil) this.#resumeUntil = null;
      return;
    }
    let next = this.#chained(rev);
    // Close the batch before this revision would take its body past the batch size.
    if (
      this.#batch.length > 0 &&
      requestBodyBytes(this.#batch.length + 1, this.#jsonBytes + next.size.jsonBytes) > this.batching.bytes
    ) {
      await this.flush();
      next = this.#chained(rev);
    }
    const alone = requestBodyBytes(1, next.size.jsonBytes);
    if (alone > this.batching.maxRequestBytes) {
      this.onProblem(
        new RevisionProblem(
          rev.title,
          String(rev.id),
          `its request body would be ${alone} bytes of JSON, over the archive's storage.maxRequestBytes (${this.batching.maxRequestBytes} bytes)`,
        ),
      );
      return;
    }
    this.summary.rawBytes += next.size.textBytes;
    this.#batch.push(next.revision);
    this.#sizes.push(next.size);
    this.#jsonBytes += next.size.jsonBytes;
    // A revision bigger than the batch size on its own goes alone.
    if (
      this.#batch.length >= this.batching.revisions ||
      requestBodyBytes(this.#batch.length, this.#jsonBytes) >= this.batching.bytes
    )
      await this.flush();
  }

  /** The revision as the write API takes it, chained to the one before it, and its size. */
  #chained(rev: ExportRevision): { revision: NewRevision; size: { jsonBytes: number; textBytes: number } } {
    const revision = toNewRevision(rev, this.#batch.at(-1)?.id ?? this.#lastStored);
    return { revision, size: measureRevision(revision) };
  }

  async #startPage(title: string): Promise<void> {
    await this.end(); // the previous page's, if any
    this.#title = title;
    this.#key = normalizeTitle(title).ok ? (normalizeTitle(title) as { key: string }).key : title;
    this.summary.pages.add(this.#key);
    this.#lastStored = await this.client.latestId(this.#key);
    this.#resumeUntil = this.#lastStored;
  }

  /** A backup's page deleted as MediaWiki deletes (after its revisions): restored deleted. */
  async deletePage(title: string): Promise<void> {
    if (title !== this.#title) return; // none of its revisions was stored: there is no page to delete
    await this.flush();
    await this.client.setPageDeleted(this.#key, true, "deleted in the imported file");
  }

  /** Ends the page: if the archive's latest never appeared in the export, nothing was really resumed. */
  async end(): Promise<void> {
    if (this.#resumeUntil !== null) {
      throw new UsageError(
        `page ${this.#title}: the archive's latest revision ${this.#resumeUntil} is not in this export; refusing to guess where to resume`,
      );
    }
    await this.flush();
  }

  async flush(): Promise<void> {
    while (this.#batch.length > 0) {
      try {
        const batch = this.#batch;
        const bytes = requestBodyBytes(batch.length, this.#jsonBytes);
        const result = await this.client.append(this.#key, () => requestBodyStream(batch, bytes), {
          wikiPageId: this.#wikiPageId,
        });
        this.summary.created += result.created.length;
        this.summary.existing += result.existing.length;
        // Stored all the same (MediaWiki imports them too); the writer is told, and the import goes on.
        for (const warning of result.warnings ?? []) {
          this.warn(`warning: page ${JSON.stringify(this.#title)} revision ${warning.revisionId}: ${warning.detail}`);
          this.summary.warnings++;
        }
        this.#lastStored = result.latestId;
        this.#batch = [];
        this.#sizes = [];
        this.#jsonBytes = 0;
      } catch (err) {
        const revisionId = err instanceof ArchiveHttpError ? (err.problem?.revision as number | undefined) : undefined;
        if (
          this.flags.onError === "stop" ||
          revisionId === undefined ||
          !(err instanceof ArchiveHttpError) ||
          err.status >= 500
        )
          throw err;
        this.warn(`skipped page ${JSON.stringify(this.#title)} revision ${revisionId}: ${err.message}`);
        this.summary.skipped++;
        // The last one: for a duplicate id in the batch, the first occurrence is the good one.
        const index = this.#batch.map((r) => r.id).lastIndexOf(revisionId);
        if (index < 0) throw err;
        this.summary.rawBytes -= this.#sizes[index]!.textBytes;
        this.#batch.splice(index, 1);
        this.#batch.forEach((r, i) => (r.parentId = i === 0 ? this.#lastStored : this.#batch[i - 1]!.id));
        // Only the revision that took the removed one's place has a new parent.
        this.#sizes.splice(index, 1);
        if (index < this.#batch.length) this.#sizes[index] = measureRevision(this.#batch[index]!);
        this.#jsonBytes = this.#sizes.reduce((n, size) => n + size.jsonBytes, 0);
      }
    }
  }
}

/**
 * How big a request may be: what the archive advertises (an archive that does not is an error,
 * src/tools/local/archive-client.ts). A --batch-bytes it cannot take is a usage error.
 */
async function batchingFor(
  client: ArchiveClient,
  flags: ImportFlags,
): Promise<{ revisions: number; bytes: number; maxRequestBytes: number }> {
  const { maxRequestBytes } = await client.limits();
  if (flags.batchBytes !== undefined && flags.batchBytes > maxRequestBytes) {
    throw new UsageError(
      `--batch-bytes ${flags.batchBytes} is more than the archive accepts: the archive's storage.maxRequestBytes is ${maxRequestBytes} bytes`,
    );
  }
  return {
    revisions: flags.batchRevisions,
    bytes: flags.batchBytes ?? Math.min(DEFAULT_BATCH_BYTES, maxRequestBytes),
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
async function storedBytes(client: ArchiveClient, pages: Iterable<string>): Promise<number> {
  let stored = 0;
  for (const key of pages) {
    const s = await client.stats(key);
    stored += s.blobBytes + s.metadataBytes;
  }
  return stored;
}

async function runImport(file: string, flags: ImportFlags): Promise<void> {
  const token = writeToken(flags);
  const size = await fileSize(file);
  const client = new ArchiveClient({ url: flags.url, token });
  const summary: Summary = { pages: new Set(), created: 0, existing: 0, skipped: 0, warnings: 0, rawBytes: 0 };
  const bar =
    flags.progress && process.stderr.isTTY
      ? new cliProgress.SingleBar(
          {
            format: "importing [{bar}] {percentage}% | {revisions} revisions | {eta_formatted} left",
            stream: process.stderr,
          },
          cliProgress.Presets.shades_classic,
        )
      : null;
  let read = 0;
  bar?.start(size, 0, { revisions: 0 });
  const warn = (line: string) => {
    if (bar) bar.stop();
    process.stderr.write(`palimpsest: ${line}\n`);
    if (bar) bar.start(size, read, { revisions: summary.created + summary.existing });
  };
  const onProblem = (problem: RevisionProblem) => {
    if (flags.onError === "stop")
      throw new Error(problem.textHidden ? `${problem}; --on-error skip imports the other revisions` : String(problem));
    warn(`skipped ${problem}`);
    summary.skipped++;
  };
  const started = Date.now();
  try {
    const batching = await batchingFor(client, flags);
    const importer = new PageImporter(client, batching, flags, summary, onProblem, warn);
    const bytes = readExport(file, (n) => {
      read += n;
      bar?.update(read, { revisions: summary.created + summary.existing });
    });
    for await (const item of readMediaWikiExport(decodeUtf8(bytes))) {
      if (item.kind === "problem") onProblem(item.problem);
      else if (item.kind === "deleted") await importer.deletePage(item.page.title);
      else await importer.add(item.revision);
    }
    await importer.end();
  } catch (err) {
    // What was stored stays stored; running the import again carries on from there.
    if (err instanceof ExportReadError) {
      throw new Error(
        `${err.message}; ${summary.created + summary.existing} revisions imported so far (importing a complete copy carries on from there)`,
        { cause: err },
      );
    }
    throw err;
  } finally {
    bar?.stop();
  }
  const stored = await storedBytes(client, summary.pages);
  const line = {
    pages: summary.pages.size,
    revisions: summary.created + summary.existing,
    created: summary.created,
    already_stored: summary.existing,
    skipped: summary.skipped,
    warnings: summary.warnings,
    raw_bytes: summary.rawBytes,
    stored_bytes: stored,
    seconds: Math.round((Date.now() - started) / 100) / 10,
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
      `request body bytes per batch (default: ${DEFAULT_BATCH_BYTES}, or the archive's storage.maxRequestBytes if less)`,
      parseIntOption("batch-bytes", 1024, Number.MAX_SAFE_INTEGER),
    )
    .option("--no-progress", "no progress bar")
    .action((file: string, flags: ImportFlags) => runImport(file, flags));
}
