/**
 * A whole wiki's MediaWiki export (many `<page>`s in one file), streamed page
 * by page: each page comes with an iterator over its own revisions, which is
 * read to its end (or left, and then skipped) before the next page is read.
 * Nothing but the revision being handed over is held in memory. A page whose
 * title comes back after another page's is an error, as is anything
 * history.ts refuses.
 *
 * `holdsManyPages` tells a whole wiki from one page's history by the raw
 * bytes alone (a second `<page>` element; text cannot hold one, it is
 * escaped), so a history's check costs one decompression, not an XML parse.
 *
 * @example
 * if (await holdsManyPages(file))
 *   for await (const page of exportPages(file))
 *     for await (const rev of page.revisions) console.log(page.title, rev.id);
 */
import { readExport } from "../../import/open-export.ts";
import type { ExportRevision } from "../../import/mediawiki-reader.ts";
import { exportAllRevisions, HistoryInputError } from "./history.ts";

export interface ExportPage {
  title: string;
  /** The page's `<id>` on its wiki, when the export gives it. */
  wikiPageId?: number;
  /** Its revisions in the export's order; read them before asking for the next page. */
  revisions: AsyncGenerator<ExportRevision>;
}

const PAGE_TAG = Buffer.from("<page>");

/** Whether the export holds more than one `<page>`: reads (and decompresses) until the second, or to the end. */
export async function holdsManyPages(file: string): Promise<boolean> {
  let pages = 0;
  let tail = Buffer.alloc(0);
  for await (const chunk of readExport(file)) {
    // The tail keeps a tag cut in two by a chunk boundary, and is too short to hold a whole one.
    const bytes = Buffer.concat([tail, chunk]);
    for (let at = bytes.indexOf(PAGE_TAG); at !== -1; at = bytes.indexOf(PAGE_TAG, at + PAGE_TAG.length)) {
      if (++pages > 1) return true;
    }
    tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - (PAGE_TAG.length - 1))));
  }
  return false;
}

export async function* exportPages(file: string): AsyncGenerator<ExportPage> {
  const revisions = exportAllRevisions(file);
  const seen = new Set<string>();
  try {
    let next = await revisions.next();
    while (!next.done) {
      const title = next.value.title;
      if (seen.has(title)) {
        throw new HistoryInputError(
          `${file}: page ${JSON.stringify(title)} comes back after another page; a whole-wiki export holds each page's revisions together`,
        );
      }
      seen.add(title);
      const wikiPageId = next.value.wikiPageId;
      async function* ofPage(): AsyncGenerator<ExportRevision> {
        while (!next.done && next.value.title === title) {
          const rev = next.value;
          next = await revisions.next();
          yield rev;
        }
      }
      const page = ofPage();
      yield { title, ...(wikiPageId === undefined ? {} : { wikiPageId }), revisions: page };
      // Whatever the consumer left of this page is skipped.
      while (!next.done && next.value.title === title) next = await revisions.next();
    }
  } finally {
    await revisions.return(undefined);
  }
}
