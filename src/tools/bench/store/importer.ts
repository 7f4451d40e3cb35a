/**
 * Imports one page history through the archive's write API, batched exactly
 * as `palimpsest import` batches (a request closes at 64 revisions or 8 MiB of
 * text, whichever comes first), and times every request.
 *
 * Write latency per revision is a batch's request time divided by the
 * revisions in it; every revision carries its batch's figure, and
 * `write_ms_p50` is the median over revisions (so a short final batch counts
 * for as few revisions as it holds). The client makes one attempt per request:
 * a retried request would hide its failure and inflate its time, so any
 * error ends the bench.
 *
 * What is kept per revision is only what the read phase needs (id, SHA-1,
 * size), never the text.
 *
 * @example
 * const result = await importHistory(client, "BIP_0340", exportRevisions(file));
 * percentile(result.writeMsPerRevision, 50);
 */
import { toNewRevision } from "../../import/to-new-revision.ts";
import { LIMITS } from "../../../limits.ts";
import type { ArchiveClient } from "../../local/archive-client.ts";
import { sha1Base36 } from "../../../lib/digests.ts";
import type { NewRevision } from "../../../page/types.ts";

/** `palimpsest import`'s defaults (--batch-revisions, --batch-bytes). */
export const IMPORT_BATCH = { revisions: 64, bytes: LIMITS.importer.heldBytes } as const;

/** A revision as the read phase needs it. */
export interface RevisionRef {
  id: number;
  /** MediaWiki base-36 SHA-1: the export's `<sha1>`, or computed from its text when the export has none. */
  sha1: string;
  bytes: number;
}

export interface ImportResult {
  revisions: RevisionRef[];
  rawBytes: number;
  /** One entry per revision: its batch's request time divided by the batch's revision count, in ms. */
  writeMsPerRevision: number[];
  batches: number;
  seconds: number;
}

export interface ImportOptions {
  batchRevisions?: number;
  batchBytes?: number;
  /** The page's id on its wiki, sent with every batch as `palimpsest import` sends it (`?page_id=`). */
  wikiPageId?: number;
  /** Called after every batch. */
  onProgress?: (done: { revisions: number; rawBytes: number }) => void;
}

/** Revisions in commit order; parent ids are chained here, as `palimpsest import` chains them. */
type Source = AsyncIterable<Omit<NewRevision, "parentId">> | Iterable<Omit<NewRevision, "parentId">>;

export async function importHistory(
  client: ArchiveClient,
  key: string,
  source: Source,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const maxRevisions = options.batchRevisions ?? IMPORT_BATCH.revisions;
  const maxBytes = options.batchBytes ?? IMPORT_BATCH.bytes;
  const refs: RevisionRef[] = [];
  const writeMs: number[] = [];
  let batch: NewRevision[] = [];
  let batchBytes = 0;
  let lastStored: number | null = null;
  let rawBytes = 0;
  let batches = 0;
  const started = performance.now();

  const flush = async () => {
    if (batch.length === 0) return;
    const t0 = performance.now();
    const result = await client.append(key, batch, { wikiPageId: options.wikiPageId });
    const ms = performance.now() - t0;
    if (result.created.length !== batch.length) {
      throw new Error(
        `page ${key}: the archive created ${result.created.length} of ${batch.length} revisions (already stored: ${result.existing.length}); a fresh archive should create all`,
      );
    }
    for (let i = 0; i < batch.length; i++) writeMs.push(ms / batch.length);
    lastStored = result.latestId;
    batches++;
    batch = [];
    batchBytes = 0;
    options.onProgress?.({ revisions: refs.length, rawBytes });
  };

  for await (const rev of source) {
    const bytes = Buffer.byteLength(rev.text);
    const sha1 = rev.sha1 ?? (await sha1Base36(new TextEncoder().encode(rev.text)));
    refs.push({ id: rev.id, sha1, bytes });
    rawBytes += bytes;
    batch.push(toNewRevision(rev, batch.at(-1)?.id ?? lastStored, sha1));
    batchBytes += bytes;
    if (batch.length >= maxRevisions || batchBytes >= maxBytes) await flush();
  }
  await flush();
  return {
    revisions: refs,
    rawBytes,
    writeMsPerRevision: writeMs,
    batches,
    seconds: (performance.now() - started) / 1000,
  };
}
