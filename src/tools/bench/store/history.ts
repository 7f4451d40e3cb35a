/**
 * One revision history out of a MediaWiki export, streamed: the store bench
 * reads each export twice (once to import it, once for the baselines) rather
 * than hold hundreds of megabytes of revisions in memory. The bench measures
 * whole histories, so a bad revision is an error, not a skip, and so is a
 * second page where one history is expected (a whole wiki is read page by
 * page by wiki-export.ts).
 *
 * @example
 * historyName("/corpus/histories/w3c-aria.xml.br"); // "w3c-aria"
 * for await (const rev of exportRevisions(file)) console.log(rev.id, rev.text.length);
 */
import { basename } from "node:path";
import { decodeUtf8, readMediaWikiExport, type ExportRevision } from "../../import/mediawiki-reader.ts";
import { openExport } from "../../import/open-export.ts";

/** The export isn't one clean page history the bench can measure. */
export class HistoryInputError extends Error {}

/** The file's name without directories and without `.xml`, `.xml.br`, `.xml.gz`, `.xml.bz2`, `.br`, ... */
export function historyName(file: string): string {
  return basename(file).replace(/(\.xml)?(\.(br|gz|bz2))?$/, "") || basename(file);
}

/** The revisions of a history: a second page in the export is an error. */
export async function* exportRevisions(file: string): AsyncGenerator<ExportRevision> {
  let title: string | null = null;
  for await (const rev of exportAllRevisions(file)) {
    if (title !== null && rev.title !== title) {
      throw new HistoryInputError(
        `${file} holds more than one page (${JSON.stringify(title)}, then ${JSON.stringify(rev.title)}); bench store measures one page history per file`,
      );
    }
    title = rev.title;
    yield rev;
  }
}

/** Every revision of every page, in the export's order; a revision the reader refuses is an error. */
export async function* exportAllRevisions(file: string): AsyncGenerator<ExportRevision> {
  const bytes = await openExport(file);
  // Stopping early (the consumer failed) must not destroy the stream with an
  // AbortError: openExport forwards stream errors to the file stream, which
  // has no listener, so that would crash the process and hide the real error.
  // Destroy it without an error instead.
  const chunks = bytes.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>;
  let revisions = 0;
  try {
    for await (const item of readMediaWikiExport(decodeUtf8(chunks))) {
      if (item.kind === "problem") throw new HistoryInputError(`${file}: ${item.problem.toString()}`);
      if (item.kind === "deleted") continue;
      revisions++;
      yield item.revision;
    }
  } finally {
    bytes.destroy();
  }
  if (revisions === 0) throw new HistoryInputError(`${file} holds no revisions`);
}
