/**
 * `palimpsest export FILE`: the archive's pages, or the ones asked for, as
 * one MediaWiki XML export (schema 0.11), written `.xml`, `.gz`, `.br` or
 * `.bz2` as FILE's name says. Page by page: each page's history streams from
 * `GET /page/{title}/export` (following its `Link: rel="next"`) into the
 * file, a progress bar counts pages and revisions, and an interrupted run
 * resumes where it stopped, ending byte-identical to an uninterrupted one
 * (src/tools/export/export-file.ts). With a `backup`-scope token, suppressed
 * revisions' content comes along, marked as suppressed, so `palimpsest
 * import` restores everything; without one, the export is what anyone may
 * read.
 *
 * @example
 * npx palimpsest export --token "$BACKUP_TOKEN" backup-2026-11-26.xml.br
 * npx palimpsest export --page "BIP 0340" --page Vellum two-pages.xml
 */
import { createHash } from "node:crypto";
import { errorMessage } from "../../../lib/errors.ts";
import { readFile } from "node:fs/promises";
import { Command } from "commander";
import cliProgress from "cli-progress";
import { normalizeTitle } from "../../../page/title.ts";
import { ExportFile } from "../../export/export-file.ts";
import { PAGE_CLOSE, spliceAnswer } from "../../export/page-splice.ts";
import { ArchiveClient } from "../../local/archive-client.ts";
import { UsageError } from "../../local/output.ts";

interface ExportFlags {
  url: string;
  token?: string;
  pages?: string;
  page?: string[];
  progress: boolean;
}

/** A page to export: its key, and how many revisions the directory says it has (null: not reported). */
interface PageToExport {
  key: string;
  revisions: number | null;
}

function keyOf(title: string): string {
  const t = normalizeTitle(title);
  if (!t.ok) throw new UsageError(`${JSON.stringify(title)} is not a page title: ${t.reason}`);
  return t.key;
}

/** The titles asked for (`--page`, then `--pages FILE`, one a line), or null for the whole archive. */
async function askedPages(flags: ExportFlags): Promise<string[] | null> {
  const titles = [...(flags.page ?? [])];
  if (flags.pages !== undefined) {
    let text: string;
    try {
      text = await readFile(flags.pages, "utf8");
    } catch {
      throw new UsageError(`cannot read the page list ${flags.pages}`);
    }
    titles.push(...text.split(/\r?\n/).filter((line) => line.trim() !== ""));
  }
  return titles.length > 0 ? titles.map(keyOf) : null;
}

/** Every live page of the archive, in key order, after `after`. */
async function* everyPage(client: ArchiveClient, after: string): AsyncGenerator<PageToExport> {
  for (let cursor: string | null = after; cursor !== null;) {
    const list = await client.listPages(cursor);
    // Listed deleted only to a backup token, and then restorable: its export holds it, marked deleted.
    for (const p of list.pages) yield { key: p.key, revisions: p.revisions };
    cursor = list.next;
  }
}

/** The offset a `Link: <…>; rel="next"` names, if the answer has one. */
function nextOffset(res: Response): string | null {
  const link = res.headers.get("link");
  const url = link && /<([^>]+)>\s*;\s*rel="next"/.exec(link)?.[1];
  return url ? new URL(url).searchParams.get("offset") : null;
}

/** Seconds without a byte of an answer after which the export stops (and a re-run carries on from the last whole page). */
const STALL_SECONDS = 120;

/** The body's chunks, or an error once the archive has sent nothing for STALL_SECONDS. */
async function* stallGuarded(body: ReadableStream<Uint8Array>, what: string): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what}: the archive sent nothing for ${STALL_SECONDS} s`)),
          STALL_SECONDS * 1000,
        );
      });
      const next = await Promise.race([reader.read(), stalled]).finally(() => clearTimeout(timer));
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Writes one page, answer after answer; returns its revision count. Nothing of it counts until it is whole. */
async function exportOnePage(client: ArchiveClient, work: ExportFile, key: string, wrote: (n: number) => void) {
  let revisions = 0;
  let offset: string | undefined;
  for (let first = true; ; first = false) {
    const res = await client.exportPage(key, offset);
    revisions += Number(res.headers.get("x-export-revisions") ?? 0);
    const next = nextOffset(res);
    for await (const bytes of spliceAnswer(stallGuarded(res.body! as ReadableStream<Uint8Array>, `page ${key}`), {
      first,
      what: `page ${key}`,
    })) {
      await work.write(bytes);
      wrote(bytes.byteLength);
    }
    if (next === null) break;
    offset = next;
  }
  await work.write(PAGE_CLOSE);
  return revisions;
}

async function runExport(file: string, flags: ExportFlags): Promise<void> {
  const token = flags.token ?? process.env.PALIMPSEST_TOKEN ?? "";
  const client = new ArchiveClient({ url: flags.url, token });
  const asked = await askedPages(flags);
  const selection =
    asked === null
      ? `every page of ${client.url}`
      : `${asked.length} pages of ${client.url} (${createHash("sha256").update(asked.join("\n")).digest("hex").slice(0, 16)})`;
  const work = await ExportFile.open(file, selection);
  const started = Date.now();
  const resumed = work.resumed;
  const summary = { pages: resumed.pages, revisions: resumed.revisions, xmlBytes: 0 };
  // Pages in a fixed order: the list's order, or key order for the whole archive, so a re-run continues where this one stopped.
  const pages: AsyncIterable<PageToExport> | PageToExport[] =
    asked === null
      ? everyPage(client, resumed.lastKey ?? "")
      : asked.slice(resumed.pages).map((key) => ({ key, revisions: null }));
  const total = asked?.length ?? null;
  const bar =
    flags.progress && process.stderr.isTTY
      ? new cliProgress.SingleBar(
          {
            format: `exporting [{bar}] {value}${total === null ? "" : "/{total}"} pages | {revisions} revisions | {mb} MB of XML`,
            stream: process.stderr,
          },
          cliProgress.Presets.shades_classic,
        )
      : null;
  bar?.start(total ?? 0, summary.pages, { revisions: summary.revisions, mb: "0" });
  try {
    if (!work.complete) {
      for await (const page of pages) {
        try {
          const n = await exportOnePage(client, work, page.key, (bytes) => (summary.xmlBytes += bytes));
          await work.pageDone(page.key, n);
          summary.pages++;
          summary.revisions += n;
        } catch (err) {
          await work.discardPage();
          throw new Error(
            `${errorMessage(err)}; ${summary.pages} pages are written (running the same command again carries on from there)`,
            { cause: err },
          );
        }
        if (total === null) bar?.setTotal(summary.pages);
        bar?.update(summary.pages, {
          revisions: summary.revisions,
          mb: (summary.xmlBytes / 1e6).toFixed(0),
        });
      }
    }
    bar?.stop();
    const bytes = await work.finish();
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(
      `${JSON.stringify({
        file,
        pages: summary.pages,
        revisions: summary.revisions,
        resumed_pages: resumed.pages,
        xml_bytes: summary.xmlBytes,
        file_bytes: bytes,
        seconds: Math.round(seconds * 10) / 10,
      })}\n`,
    );
  } finally {
    bar?.stop();
    await work.close();
  }
}

export function registerExportCommand(program: Command): void {
  program
    .command("export")
    .description("export the archive's pages as a MediaWiki XML export (.xml, .gz, .br or .bz2); re-running resumes")
    .argument("<file>", "the export to write; its extension says how")
    .option("--url <url>", "archive base URL", "http://localhost:8787")
    .option(
      "--token <token>",
      "a backup-scope token, to include suppressed revisions' content (default: $PALIMPSEST_TOKEN; none: a public export)",
    )
    .option("--pages <file>", "export the pages listed in this file, one title a line")
    .option(
      "--page <title>",
      "export this page (repeatable)",
      (title: string, titles: string[]) => [...titles, title],
      [],
    )
    .option("--no-progress", "no progress bar")
    .action((file: string, flags: ExportFlags) => runExport(file, flags));
}
