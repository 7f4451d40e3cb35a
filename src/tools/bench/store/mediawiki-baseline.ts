/**
 * MediaWiki 1.39 as the whole-wiki baseline of `bench store`: the same export
 * loaded by its own `importDump.php` into a fresh wiki on SQLite
 * (src/tools/local/mediawiki.ts, installed with `install.php`'s defaults and
 * {@link HTML_MODEL_SETTING}), and
 * the same revisions read back from it with `index.php?action=raw&oldid=N`
 * from PHP's built-in server.
 *
 * The import is timed as one run of the script (PHP's start-up included,
 * a fraction of a second), with no options. It can stop part way: MediaWiki
 * refuses some names as contributors (it stopped at one called `/dev/fd0` on
 * another wiki), and then the script exits non-zero. So what is reported is
 * how many revisions the wiki holds after it (counted in its database, the
 * Main Page install.php made left out), whether the script completed, and the
 * exception it stopped on when it did not. Revisions per second are those
 * revisions over the script's wall time.
 *
 * The database's bytes are `data/wiki.sqlite` (with any `-wal` or
 * `-journal`) after the import: the pages, revisions, their texts and
 * everything else MediaWiki keeps in its main database (install.php's
 * tables and rows, some 0.9 MB, included; `importBytes` is the growth the
 * import made). Its localisation cache and job queue are databases of their
 * own and are not counted.
 *
 * A read is timed from sending the request to having the whole body, which
 * must have the revision's SHA-1 (base 36), as the archive's reads must.
 * MediaWiki numbers imported revisions itself (importDump.php does not keep
 * the export's ids), so each page's revisions are matched with the wiki's in
 * order, and each match is checked by SHA-1 (`rev_sha1`).
 *
 * @example
 * const wiki = await startLocalMediaWiki();
 * const run = await importDump(wiki, "wiki.xml");
 * const ids = await revisionIds(wiki); // "RFC_0001-private-fields" → [{ id, sha1 }, ...]
 * const ms = await readRaw(wiki.url, ids.get("RFC_0001-private-fields")![0]!);
 *
 * {@link measureMediaWiki} runs both imports a bench row reports (default
 * settings, then `$wgCompressRevisions = true`, each into a fresh wiki) for a
 * whole wiki and for a single history alike, and keeps the first wiki serving
 * for the reads; {@link matchRevisions} pairs the archive's revisions with the
 * wiki's.
 */
import { createWriteStream } from "node:fs";
import { errorMessage } from "../../../lib/errors.ts";
import { pipeline } from "node:stream/promises";
import { sha1Base36 } from "../../../lib/digests.ts";
import { openExport } from "../../import/open-export.ts";
import { mediaWikiMissing, startLocalMediaWiki, type LocalMediaWiki } from "../../local/mediawiki.ts";
import type { RevisionRef } from "./importer.ts";

/** importDump.php of a whole wiki takes minutes; a stuck one is stopped. */
export const IMPORT_DUMP_TIMEOUT_MS = 3 * 60 * 60 * 1000;

export interface MediaWikiImport {
  /** Revisions the wiki holds after the import that it did not hold before. */
  revisions: number;
  /** importDump.php exited 0. */
  completed: boolean;
  /** The last line importDump.php printed when it did not complete; null when it did. */
  error: string | null;
  seconds: number;
  /** `data/wiki.sqlite` (and its -wal, -journal) after the import. */
  databaseBytes: number;
  /** What the import added to it. */
  importBytes: number;
}

/** A revision of the wiki: its id there and its SHA-1 in base 36. */
export interface WikiRevisionId {
  id: number;
  sha1: string;
}

async function revisionCount(wiki: LocalMediaWiki): Promise<number> {
  const [row] = await wiki.query<{ n: number | string }>("SELECT COUNT(*) AS n FROM revision");
  return Number(row?.n ?? 0);
}

/**
 * Why a script stopped: the last line of its output naming an exception or an error, leaving out
 * PHP's notices and warnings and the stack trace's frames (`#3 ...`); else its last line.
 */
export function stopReason(message: string): string {
  const lines = message
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const said = lines.filter((l) => /Exception|Error/.test(l) && !/^#\d|^PHP (Notice|Warning|Deprecated)/.test(l));
  return (said.at(-1) ?? lines.at(-1) ?? message).slice(0, 300);
}

/** Runs `importDump.php FILE` (plain XML) once and measures what it did. */
export async function importDump(wiki: LocalMediaWiki, xmlFile: string): Promise<MediaWikiImport> {
  const before = await revisionCount(wiki);
  const bytesBefore = wiki.databaseBytes();
  const started = performance.now();
  let error: string | null = null;
  try {
    await wiki.maintenance("importDump", [xmlFile], { timeoutMs: IMPORT_DUMP_TIMEOUT_MS });
  } catch (err) {
    error = stopReason(errorMessage(err));
  }
  const seconds = (performance.now() - started) / 1000;
  const databaseBytes = wiki.databaseBytes();
  return {
    revisions: (await revisionCount(wiki)) - before,
    completed: error === null,
    error,
    seconds,
    databaseBytes,
    importBytes: databaseBytes - bytesBefore,
  };
}

/** Every main-namespace page's revisions on the wiki, oldest first, by title key (underscores, as the archive's keys). */
export async function revisionIds(wiki: LocalMediaWiki): Promise<Map<string, WikiRevisionId[]>> {
  const rows = await wiki.query<{ title: string; id: number | string; sha1: string }>(
    "SELECT page_title AS title, rev_id AS id, rev_sha1 AS sha1 FROM revision JOIN page ON rev_page = page_id" +
      " WHERE page_namespace = 0 ORDER BY page_id, rev_id",
  );
  const pages = new Map<string, WikiRevisionId[]>();
  for (const row of rows) {
    const revs = pages.get(row.title) ?? [];
    revs.push({ id: Number(row.id), sha1: row.sha1 });
    pages.set(row.title, revs);
  }
  return pages;
}

/** Reads one revision's text with `index.php?action=raw&oldid=N`, checks its SHA-1, and returns the ms it took. */
export async function readRaw(url: string, rev: WikiRevisionId): Promise<number> {
  const address = `${url}/index.php?action=raw&oldid=${rev.id}`;
  const t0 = performance.now();
  const res = await fetch(address);
  const body = new Uint8Array(await res.arrayBuffer());
  const ms = performance.now() - t0;
  if (res.status !== 200)
    throw new Error(`GET ${address}: HTTP ${res.status} ${new TextDecoder().decode(body.subarray(0, 300))}`);
  const sha1 = await sha1Base36(body);
  if (sha1 !== rev.sha1)
    throw new Error(`GET ${address}: body has SHA-1 ${sha1} (${body.byteLength} bytes), the wiki says ${rev.sha1}`);
  return ms;
}

/** The export as plain XML, which importDump.php reads (it takes .gz and .bz2 by name, not .br). */
export async function writePlainXml(file: string, out: string): Promise<void> {
  await pipeline(await openExport(file), createWriteStream(out));
}

/** A page as the archive holds it after the bench's import: its key and its revisions. */
export interface ArchivedPage {
  key: string;
  revisions: readonly RevisionRef[];
}

/** A revision both sides hold: the archive's, and the wiki's id for it (null without MediaWiki). */
export interface SampledRead {
  key: string;
  rev: RevisionRef;
  wiki: WikiRevisionId | null;
}

/** A page's revisions the wiki holds too, each with the wiki's id: by SHA-1, the n-th copy of a text with the wiki's n-th. */
export function matchRevisions(page: ArchivedPage, ids: Map<string, WikiRevisionId[]>): SampledRead[] {
  const bySha1 = new Map<string, WikiRevisionId[]>();
  for (const w of ids.get(page.key) ?? []) bySha1.set(w.sha1, [...(bySha1.get(w.sha1) ?? []), w]);
  return page.revisions.flatMap((rev) => {
    const wiki = bySha1.get(rev.sha1)?.shift();
    return wiki === undefined ? [] : [{ key: page.key, rev, wiki }];
  });
}

/** An importDump.php run, and the raw text bytes of the archive's revisions that wiki then holds. */
export type MediaWikiRun = MediaWikiImport & { rawBytes: number };

export interface MediaWikiRuns {
  plain: MediaWikiRun;
  compressed: MediaWikiRun;
  /** The default-settings wiki, still serving, for the reads, and its revisions. */
  wiki: LocalMediaWiki;
  ids: Map<string, WikiRevisionId[]>;
}

/**
 * The one setting both wikis get beyond install.php's: a content handler for the `html` model the
 * corpus's HTML histories are exported with (plain text, format text/html). MediaWiki 1.39 has no such
 * model and refuses every revision of such an export without it (MWUnknownContentModelException);
 * wikitext pages are not touched by it.
 */
export const HTML_MODEL_SETTING =
  "$wgContentHandlers['html'] = [ 'class' => TextContentHandler::class, 'args' => [ 'html', [ 'text/html' ] ] ];";

/** Both importDump.php runs of `xml`, each into a fresh wiki; the first wiki stays up for the reads (the caller stops it). */
export async function measureMediaWiki(
  xml: string,
  pages: readonly ArchivedPage[],
  log: (line: string) => void,
): Promise<MediaWikiRuns> {
  const run = async (wiki: LocalMediaWiki, what: string) => {
    const done = await importDump(wiki, xml);
    const ids = await revisionIds(wiki);
    const rawBytes = pages.flatMap((p) => matchRevisions(p, ids)).reduce((n, m) => n + m.rev.bytes, 0);
    log(
      `MediaWiki (${what}): importDump.php ${done.completed ? "completed" : `stopped (${done.error})`}, ${done.revisions} revisions (${rawBytes} bytes of text) in ${done.seconds.toFixed(1)} s, database ${done.databaseBytes} bytes`,
    );
    return { run: { ...done, rawBytes }, ids };
  };
  const wiki = await startLocalMediaWiki({ settings: [HTML_MODEL_SETTING] });
  try {
    const plain = await run(wiki, "default settings");
    const compressedWiki = await startLocalMediaWiki({
      settings: [HTML_MODEL_SETTING, "$wgCompressRevisions = true;"],
    });
    let compressed: MediaWikiRun;
    try {
      compressed = (await run(compressedWiki, "$wgCompressRevisions = true")).run;
    } finally {
      await compressedWiki.stop();
    }
    return { plain: plain.run, compressed, wiki, ids: plain.ids };
  } catch (err) {
    await wiki.stop();
    throw err;
  }
}

/** install.php's Main Page read once, so a server started afresh has paid its first answer outside any timed read. */
export async function firstAnswer(wiki: LocalMediaWiki): Promise<void> {
  await (await fetch(`${wiki.url}/index.php?title=Main_Page&action=raw`)).arrayBuffer();
}

/** Whether a bench row measures MediaWiki: asked for (default yes) and installed; says so on stderr when it is not. */
export function mediaWikiWanted(wanted = true): boolean {
  const missing = wanted ? mediaWikiMissing() : null;
  if (missing !== null) process.stderr.write(`bench store: ${missing}; the mediawiki_* fields are null\n`);
  return wanted && missing === null;
}
