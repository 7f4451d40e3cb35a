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
import { decodeUtf8, readMediaWikiExport, type ExportRevision } from "../../import/mediawiki-reader.ts";
import { openExport } from "../../import/open-export.ts";
import { toNewRevision } from "../../import/to-new-revision.ts";
import { normalizeTitle } from "../../page/title.ts";
import type { NewRevision } from "../../page/types.ts";
import { ArchiveClient, ArchiveHttpError } from "../archive-client.ts";
import { readDevToken } from "../dev-token.ts";
import { UsageError, parseIntOption } from "../output.ts";

interface ImportFlags {
  url: string;
  token?: string;
  onError: "skip" | "stop";
  batchRevisions: number;
  batchBytes: number;
  progress: boolean;
}

interface Summary {
  pages: Set<string>;
  created: number;
  existing: number;
  skipped: number;
  rawBytes: number;
}

class PageImporter {
  #title = "";
  #key = "";
  #batch: NewRevision[] = [];
  #batchBytes = 0;
  /** Last revision the archive holds for the current page; new revisions chain from it. */
  #lastStored: number | null = null;
  /** While resuming, revisions up to the archive's latest are already stored. */
  #resumeUntil: number | null = null;

  constructor(
    private readonly client: ArchiveClient,
    private readonly flags: ImportFlags,
    private readonly summary: Summary,
    private readonly warn: (line: string) => void,
  ) {}

  async add(rev: ExportRevision): Promise<void> {
    if (rev.title !== this.#title) await this.#startPage(rev.title);
    if (this.#resumeUntil !== null) {
      this.summary.existing++;
      if (rev.id === this.#resumeUntil) this.#resumeUntil = null;
      return;
    }
    const bytes = Buffer.byteLength(rev.text);
    this.summary.rawBytes += bytes;
    this.#batch.push(toNewRevision(rev, this.#batch.at(-1)?.id ?? this.#lastStored));
    this.#batchBytes += bytes;
    if (this.#batch.length >= this.flags.batchRevisions || this.#batchBytes >= this.flags.batchBytes) await this.flush();
  }

  async #startPage(title: string): Promise<void> {
    await this.end(); // the previous page's, if any
    this.#title = title;
    this.#key = normalizeTitle(title).ok ? (normalizeTitle(title) as { key: string }).key : title;
    this.summary.pages.add(this.#key);
    this.#lastStored = await this.client.latestId(this.#key);
    this.#resumeUntil = this.#lastStored;
  }

  /** Ends the page: if the archive's latest never appeared in the export, nothing was really resumed. */
  async end(): Promise<void> {
    if (this.#resumeUntil !== null) {
      throw new UsageError(`page ${this.#title}: the archive's latest revision ${this.#resumeUntil} is not in this export; refusing to guess where to resume`);
    }
    await this.flush();
  }

  async flush(): Promise<void> {
    while (this.#batch.length > 0) {
      try {
        const result = await this.client.append(this.#key, this.#batch);
        this.summary.created += result.created.length;
        this.summary.existing += result.existing.length;
        this.#lastStored = result.latestId;
        this.#batch = [];
        this.#batchBytes = 0;
      } catch (err) {
        const revisionId = err instanceof ArchiveHttpError ? (err.problem?.revision as number | undefined) : undefined;
        if (this.flags.onError === "stop" || revisionId === undefined || !(err instanceof ArchiveHttpError) || err.status >= 500) throw err;
        this.warn(`skipped page ${JSON.stringify(this.#title)} revision ${revisionId}: ${err.message}`);
        this.summary.skipped++;
        // The last one: for a duplicate id in the batch, the first occurrence is the good one.
        const index = this.#batch.map((r) => r.id).lastIndexOf(revisionId);
        if (index < 0) throw err;
        this.summary.rawBytes -= Buffer.byteLength(this.#batch[index]!.text);
        this.#batch.splice(index, 1);
        this.#batch.forEach((r, i) => (r.parentId = i === 0 ? this.#lastStored : this.#batch[i - 1]!.id));
      }
    }
  }
}

async function runImport(file: string, flags: ImportFlags): Promise<void> {
  const token = flags.token ?? process.env.PALIMPSEST_TOKEN ?? readDevToken();
  if (!token) throw new UsageError("no write token: pass --token, set PALIMPSEST_TOKEN, or run npm start once to create .dev.vars");
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  const client = new ArchiveClient({ url: flags.url, token });
  const summary: Summary = { pages: new Set(), created: 0, existing: 0, skipped: 0, rawBytes: 0 };
  const bar = flags.progress && process.stderr.isTTY ? new cliProgress.SingleBar({ format: "importing [{bar}] {percentage}% | {revisions} revisions | {eta_formatted} left", stream: process.stderr }, cliProgress.Presets.shades_classic) : null;
  let read = 0;
  bar?.start(size, 0, { revisions: 0 });
  const warn = (line: string) => {
    if (bar) bar.stop();
    process.stderr.write(`palimpsest: ${line}\n`);
    if (bar) bar.start(size, read, { revisions: summary.created + summary.existing });
  };
  const importer = new PageImporter(client, flags, summary, warn);
  const started = Date.now();
  try {
    const bytes = await openExport(file, (n) => {
      read += n;
      bar?.update(read, { revisions: summary.created + summary.existing });
    });
    for await (const item of readMediaWikiExport(decodeUtf8(bytes))) {
      if (item.kind === "problem") {
        if (flags.onError === "stop") throw new Error(String(item.problem));
        warn(`skipped ${item.problem}`);
        summary.skipped++;
        continue;
      }
      await importer.add(item.revision);
    }
    await importer.end();
  } finally {
    bar?.stop();
  }
  let stored = 0;
  for (const key of summary.pages) {
    const s = await client.stats(key);
    stored += s.blobBytes + s.metadataBytes;
  }
  const line = {
    pages: summary.pages.size,
    revisions: summary.created + summary.existing,
    created: summary.created,
    already_stored: summary.existing,
    skipped: summary.skipped,
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
    .addOption(new Option("--on-error <mode>", "on a bad revision: skip it and go on, or stop").choices(["skip", "stop"]).default("stop"))
    .option("--batch-revisions <n>", "revisions per request", parseIntOption("batch-revisions", 1, 500), 64)
    .option("--batch-bytes <n>", "text bytes per request", parseIntOption("batch-bytes", 1024, 48 * 1024 * 1024), 8 * 1024 * 1024)
    .option("--no-progress", "no progress bar")
    .action((file: string, flags: ImportFlags) => runImport(file, flags));
}
