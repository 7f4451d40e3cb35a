/**
 * The large real history `bench hostile` exports: the first revisions of
 * whatwg-html-2006 from the shared corpus (`../shared/corpus/histories/`),
 * each a whole HTML document of 0.9-1.2 MB, so an export of it escapes as
 * much markup as a real page's does. Read through the importer's own reader,
 * the first `count` revisions only, chained as the import chains them.
 *
 * @example
 * const revisions = await corpusRevisions(40); // about 41 MB of text
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { NewRevision } from "../../../page/types.ts";
import { decodeUtf8, readMediaWikiExport } from "../../import/mediawiki-reader.ts";
import { readExport } from "../../import/open-export.ts";
import { toNewRevision } from "../../import/to-new-revision.ts";
import { CorpusMissingError, DEFAULT_CORPUS_DIR } from "../corpus.ts";

export const EXPORT_HISTORY = "histories/whatwg-html-2006.xml.br";

/** The first `count` revisions of {@link EXPORT_HISTORY}; a missing corpus is an error, never a smaller stand-in. */
export async function corpusRevisions(count: number, corpusDir = DEFAULT_CORPUS_DIR): Promise<NewRevision[]> {
  const path = join(corpusDir, EXPORT_HISTORY);
  if (!existsSync(path)) throw new CorpusMissingError(`bench hostile exports ${path}, which is missing`);
  const out: NewRevision[] = [];
  const chunks = readExport(path);
  try {
    for await (const item of readMediaWikiExport(decodeUtf8(chunks))) {
      if (item.kind === "deleted") continue;
      if (item.kind !== "revision") throw new Error(`${EXPORT_HISTORY}: ${item.problem.toString()}`);
      out.push(toNewRevision(item.revision, out.at(-1)?.id ?? null, item.revision.sha1));
      if (out.length === count) break;
    }
  } finally {
    await chunks.return(undefined);
  }
  return out;
}
