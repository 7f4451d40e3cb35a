/**
 * One page's only writer in `palimpsest import`: the page's revisions, in the
 * export's order, go to `POST /api/pages/{key}/revisions` in as few requests as
 * the batch limits allow, each batch chained to the one before and sent only
 * once the one before is stored. A batch filled before the page's last
 * revision holds the reader until it is stored, so a page holds at most one
 * batch; other pages are written meanwhile (src/tools/import/import-pool.ts).
 * A batch is also cut when the revision text held by all pages in flight
 * would pass the import's one budget (src/tools/import/held-text.ts): a
 * small page goes whole while a long one's batches take what is left.
 * Reading a page's next batch while its last one was sent was faster on one
 * long history, but sending one page's large batches back to back made
 * wrangler dev's proxy drop requests ("worker restarted mid-request") and hold
 * the next one for 300 s.
 *
 * Resuming: the archive's latest revision for the page is asked for first
 * (of its PageStore, through the write API: ArchiveClient.storedLatestId);
 * revisions of the export up to it are counted as already stored and not sent
 * again. A request is all or none, so what a killed import left stored is
 * always a prefix of the page's revisions ending with a whole batch, and that
 * latest is in the export. If it never appears, the page ends refusing to
 * guess where to resume.
 *
 * @example
 * const writer = new PageWriter(context, "Sandbox", "Sandbox", Promise.resolve());
 * for (const revision of revisions) await writer.add(revision);
 * writer.end();
 * await writer.stored(); // errors went to context.fail
 */
import { RevisionProblem, type ExportRevision } from "./mediawiki-reader.ts";
import { measureRevision, requestBodyBytes, requestBodyStream } from "./request-body.ts";
import { toNewRevision } from "./to-new-revision.ts";
import type { HeldText } from "./held-text.ts";
import type { NewRevision } from "../../page/types.ts";
import { ArchiveHttpError, type ArchiveClient } from "../local/archive-client.ts";
import { UsageError } from "../local/output.ts";

/** How big a request may be: a batch closes at `revisions` or `bytes`; no request is ever over `maxRequestBytes`. */
export interface Batching {
  revisions: number;
  /** A batch's request body at most, and the revision text all pages in flight hold at once (held-text.ts). */
  bytes: number;
  maxRequestBytes: number;
}

/** What an import has done so far, shared by every page's writer. */
export interface ImportCounts {
  /** Keys of the pages the export holds revisions for. */
  pages: Set<string>;
  /** Pages whose revisions (and deletion) are all stored. */
  pagesDone: number;
  created: number;
  existing: number;
  skipped: number;
  /** Revisions the archive stored with a warning (dated before their parent). */
  warnings: number;
  /** Text bytes of the revisions sent and stored. */
  rawBytes: number;
}

/** What a page's writer needs of the import it is part of. */
export interface WriterContext {
  client: ArchiveClient;
  batching: Batching;
  onError: "skip" | "stop";
  counts: ImportCounts;
  /** The revision text every page's batches hold, and the budget they share. */
  held: HeldText;
  /** A revision that cannot be stored: skipped (and said), or thrown under `--on-error stop`. */
  onProblem(problem: RevisionProblem): void;
  warn(line: string): void;
  /** A batch was stored: the counts moved. */
  onStored(): void;
  /** The import fails with this (the first failure wins); no request starts after it. */
  fail(err: unknown): void;
  readonly failed: boolean;
}

type Size = { jsonBytes: number; textBytes: number };

interface Batch {
  revisions: NewRevision[];
  /** Each revision's bytes of JSON and of text, and the JSON's sum: the request body is sized exactly. */
  sizes: Size[];
  jsonBytes: number;
  wikiPageId: number | undefined;
}

const emptyBatch = (): Batch => ({ revisions: [], sizes: [], jsonBytes: 0, wikiPageId: undefined });

/**
 * Bytes a batch's first revision may grow by when it is sent: its parent is then the archive's
 * latest, which differs from the one the reader chained it to when the revision before it was
 * refused (`--on-error skip`). `"parentId":null` to a 16-digit id is 12 more; one id to another, 15.
 */
const PARENT_ID_SLACK = String(Number.MAX_SAFE_INTEGER).length;

export class PageWriter {
  #filling = emptyBatch();
  /** The id of the last revision put in a batch: the next one's parent, as the reader chains them. */
  #chainTail: number | null = null;
  #wikiPageId: number | undefined;
  /** The page's requests, one after another: its latest revision looked up, each batch, its deletion. Never rejects. */
  #work: Promise<void>;
  /** Last revision the archive holds for the page; the next batch chains from it. */
  #lastStored: number | null = null;
  /** While resuming, revisions up to the archive's latest are already stored. */
  #resumeUntil: number | null = null;

  /** `after`: the earlier writer of the same page, if the export names it twice; this one asks nothing before it is done. */
  constructor(
    private readonly context: WriterContext,
    readonly title: string,
    readonly key: string,
    after: Promise<void>,
  ) {
    this.#work = after;
    // Not awaited here: the step joins #work, which never rejects and which stored() hands to the importer.
    void this.#then(async () => {
      this.#lastStored = await context.client.storedLatestId(key);
      this.#resumeUntil = this.#lastStored;
    });
  }

  /** Takes the page's next revision; resolves when the reader may go on: at once, or once a full batch is stored. */
  async add(rev: ExportRevision): Promise<void> {
    const { batching } = this.context;
    const revision = toNewRevision(rev, this.#chainTail);
    const size = measureRevision(revision);
    // Close the batch before this revision would take its body past the batch size.
    if (
      this.#filling.revisions.length > 0 &&
      requestBodyBytes(this.#filling.revisions.length + 1, this.#filling.jsonBytes + size.jsonBytes) + PARENT_ID_SLACK >
        batching.bytes
    )
      await this.#seal();
    this.#wikiPageId = rev.wikiPageId;
    const alone = requestBodyBytes(1, size.jsonBytes);
    if (alone > batching.maxRequestBytes) {
      this.context.onProblem(this.#tooBig(rev.id, alone));
      return;
    }
    // The text held by every page in flight stays within one budget: when this revision would take it past,
    // the batch being filled goes now, and the reader waits until the other pages' batches leave room.
    const { held } = this.context;
    if (!held.fits(size.textBytes)) {
      await this.#seal();
      await held.room(size.textBytes);
    }
    this.#filling.revisions.push(revision);
    this.#filling.sizes.push(size);
    this.#filling.jsonBytes += size.jsonBytes;
    this.context.held.take(size.textBytes);
    this.#chainTail = revision.id;
    // A revision bigger than the batch size on its own goes alone.
    if (
      this.#filling.revisions.length >= batching.revisions ||
      requestBodyBytes(this.#filling.revisions.length, this.#filling.jsonBytes) + PARENT_ID_SLACK >= batching.bytes
    )
      await this.#seal();
  }

  /** A backup's page deleted as MediaWiki deletes (after its revisions): restored deleted once they are stored. */
  markDeleted(): void {
    void this.#seal(); // joins #work, as does the step after it (see stored())
    void this.#then(async () => {
      await this.context.client.setPageDeleted(this.key, true, "deleted in the imported file");
    });
  }

  /** The page's last revision is read: its last batch is sent after the others, without holding the reader. */
  end(): void {
    void this.#seal(); // joins #work, as does the step after it (see stored())
    void this.#then(() => {
      // If the archive's latest never appeared in the export, nothing was really resumed.
      if (this.#resumeUntil !== null)
        throw new UsageError(
          `page ${this.title}: the archive's latest revision ${this.#resumeUntil} is not in this export; refusing to guess where to resume`,
        );
    });
  }

  /** Resolves once every request of the page has been made (or skipped after a failure, which went to the context). */
  stored(): Promise<void> {
    return this.#work;
  }

  /** Hands the batch being filled to the page's requests, after the ones before it; resolves once it is stored. */
  #seal(): Promise<void> {
    if (this.#filling.revisions.length === 0) return this.#work;
    const batch = this.#filling;
    batch.wikiPageId = this.#wikiPageId;
    this.#filling = emptyBatch();
    const heldBytes = batch.sizes.reduce((n, size) => n + size.textBytes, 0);
    // Released once its request is done, whatever came of it (#work never rejects).
    return this.#then(() => this.#store(batch)).then(() => this.context.held.release(heldBytes));
  }

  /** Runs `step` after the page's earlier requests, unless the import has failed; a failure fails the import. */
  #then(step: () => Promise<void> | void): Promise<void> {
    this.#work = this.#work.then(async () => {
      if (this.context.failed) return;
      try {
        await step();
      } catch (err) {
        this.context.fail(err);
      }
    });
    return this.#work;
  }

  #tooBig(id: number, bytes: number): RevisionProblem {
    const max = this.context.batching.maxRequestBytes;
    return new RevisionProblem(
      this.title,
      String(id),
      `its request body would be ${bytes} bytes of JSON, over the archive's storage.maxRequestBytes (${max} bytes)`,
    );
  }

  async #store(batch: Batch): Promise<void> {
    const { client, counts, onError } = this.context;
    this.#dropStored(batch);
    this.#chainFirst(batch);
    while (batch.revisions.length > 0) {
      if (this.context.failed) return;
      try {
        const bytes = requestBodyBytes(batch.revisions.length, batch.jsonBytes);
        const revisions = batch.revisions;
        const result = await client.append(this.key, () => requestBodyStream(revisions, bytes), {
          wikiPageId: batch.wikiPageId,
        });
        counts.created += result.created.length;
        counts.existing += result.existing.length;
        counts.rawBytes += batch.sizes.reduce((n, size) => n + size.textBytes, 0);
        // Stored all the same (MediaWiki imports them too); the writer is told, and the import goes on.
        for (const warning of result.warnings ?? []) {
          this.context.warn(
            `warning: page ${JSON.stringify(this.title)} revision ${warning.revisionId}: ${warning.detail}`,
          );
          counts.warnings++;
        }
        this.#lastStored = result.latestId;
        this.context.onStored();
        return;
      } catch (err) {
        const revisionId = err instanceof ArchiveHttpError ? (err.problem?.revision as number | undefined) : undefined;
        if (onError === "stop" || revisionId === undefined || !(err instanceof ArchiveHttpError) || err.status >= 500)
          throw err;
        this.context.warn(`skipped page ${JSON.stringify(this.title)} revision ${revisionId}: ${err.message}`);
        counts.skipped++;
        // The last one: for a duplicate id in the batch, the first occurrence is the good one.
        const index = batch.revisions.map((r) => r.id).lastIndexOf(revisionId);
        if (index < 0) throw err;
        this.#remove(batch, index);
        this.#chainFirst(batch);
      }
    }
  }

  /** While resuming: the batch's revisions up to the archive's latest are stored already. */
  #dropStored(batch: Batch): void {
    if (this.#resumeUntil === null) return;
    const at = batch.revisions.findIndex((r) => r.id === this.#resumeUntil);
    const stored = at < 0 ? batch.revisions.length : at + 1;
    if (at >= 0) this.#resumeUntil = null;
    this.context.counts.existing += stored;
    batch.revisions.splice(0, stored);
    batch.sizes.splice(0, stored);
    batch.jsonBytes = batch.sizes.reduce((n, size) => n + size.jsonBytes, 0);
  }

  /**
   * The batch's first revision is the child of the archive's latest. A first revision that
   * this makes too big to send alone is a problem of its own: skipped, or the import stops.
   */
  #chainFirst(batch: Batch): void {
    while (batch.revisions.length > 0 && batch.revisions[0]!.parentId !== this.#lastStored) {
      batch.revisions[0]!.parentId = this.#lastStored;
      batch.jsonBytes -= batch.sizes[0]!.jsonBytes;
      batch.sizes[0] = measureRevision(batch.revisions[0]!);
      batch.jsonBytes += batch.sizes[0].jsonBytes;
      const alone = requestBodyBytes(1, batch.sizes[0].jsonBytes);
      if (alone <= this.context.batching.maxRequestBytes) return;
      this.context.onProblem(this.#tooBig(batch.revisions[0]!.id, alone));
      this.#remove(batch, 0);
    }
  }

  /** Takes a revision out of the batch; the one after it becomes the child of the one before. */
  #remove(batch: Batch, index: number): void {
    batch.revisions.splice(index, 1);
    batch.sizes.splice(index, 1);
    if (index > 0 && index < batch.revisions.length) {
      batch.revisions[index]!.parentId = batch.revisions[index - 1]!.id;
      batch.sizes[index] = measureRevision(batch.revisions[index]!);
    }
    batch.jsonBytes = batch.sizes.reduce((n, size) => n + size.jsonBytes, 0);
  }
}
