/**
 * The pages of one `palimpsest import` written at once. The export is one
 * stream, read page after page; each page gets its own writer
 * (src/tools/import/page-writer.ts), the only one sending that page's
 * revisions, and up to `concurrency` pages are in flight: the one being read
 * and those whose last revision is read but not yet stored. Starting another
 * waits for one of them to finish, so the reader is held back rather than
 * memory growing: the batches of all pages in flight hold at most the batch
 * size of revision text together (src/tools/import/held-text.ts), so what is
 * held does not grow with `concurrency`.
 *
 * Pages finish out of order; each resumes on its own (its writer asks the
 * archive for the page's latest revision first). A page the export names
 * twice is written by its second writer only once its first is done. The
 * first failed request stops the import: no request starts after it, those
 * in flight finish, and {@link ImportPool.close} throws it. A failure of the
 * reading (a cut-off export) stops the reading only: what was read whole is
 * still stored before {@link ImportPool.close} throws it.
 *
 * @example
 * const pool = new ImportPool({ client, batching, onError: "stop", concurrency: 6, onProblem, warn });
 * try {
 *   for await (const item of readMediaWikiExport(text)) if (item.kind === "revision") await pool.add(item.revision);
 * } catch (err) {
 *   await pool.close(err); // throws the first failure
 * }
 * await pool.close();
 * pool.counts; // { pages, pagesDone, created, existing, ... }
 */
import type { ExportRevision, RevisionProblem } from "./mediawiki-reader.ts";
import { HeldText } from "./held-text.ts";
import { PageWriter, type Batching, type ImportCounts, type WriterContext } from "./page-writer.ts";
import { normalizeTitle } from "../../page/title.ts";
import type { ArchiveClient } from "../local/archive-client.ts";

export interface PoolOptions {
  client: ArchiveClient;
  batching: Batching;
  onError: "skip" | "stop";
  /** Pages in flight at most. */
  concurrency: number;
  /** A revision that cannot be stored: skip it (and say so), or throw to stop. */
  onProblem(problem: RevisionProblem): void;
  warn(line: string): void;
  /** Called as each batch is stored and as each page is wholly stored. */
  onProgress?(): void;
}

export class ImportPool {
  readonly counts: ImportCounts = {
    pages: new Set(),
    pagesDone: 0,
    created: 0,
    existing: 0,
    skipped: 0,
    warnings: 0,
    rawBytes: 0,
  };
  /** The revision text the pages' batches hold; its `peak` goes in the summary. */
  readonly held: HeldText;
  readonly #context: WriterContext;
  /** The page being read. */
  #current: PageWriter | null = null;
  /** Pages whose last revision is read, until every request of theirs is made. */
  readonly #finishing = new Map<PageWriter, Promise<void>>();
  /** The last writer of each key that may still be sending: a page named again waits for it. */
  readonly #lastOfKey = new Map<string, Promise<void>>();
  #failure: { error: unknown } | null = null;

  constructor(private readonly options: PoolOptions) {
    const failed = () => this.#failure !== null;
    this.held = new HeldText(options.batching.bytes);
    this.#context = {
      client: options.client,
      batching: options.batching,
      onError: options.onError,
      counts: this.counts,
      held: this.held,
      onProblem: (problem) => options.onProblem(problem),
      warn: (line) => options.warn(line),
      onStored: () => options.onProgress?.(),
      fail: (err) => this.#fail(err),
      // A getter's own `this` is the context object; the arrow above holds the pool's.
      get failed() {
        return failed();
      },
    };
  }

  /** Pages started and not yet wholly stored. */
  get inFlight(): number {
    return this.#finishing.size + (this.#current ? 1 : 0);
  }

  /** The export's next revision; resolves when the reader may read on. */
  async add(revision: ExportRevision): Promise<void> {
    this.#throwIfFailed();
    if (this.#current?.title !== revision.title) await this.#startPage(revision.title);
    await this.#current!.add(revision);
    this.#throwIfFailed();
  }

  /** A backup's page deleted as MediaWiki deletes: deleted after its revisions are stored. */
  deletePage(title: string): void {
    // None of its revisions was read: there is no page to delete.
    if (this.#current?.title !== title) return;
    this.#current.markDeleted();
    this.#throwIfFailed();
  }

  /**
   * Ends the import: with no `error`, the page being read is ended; then every request in
   * flight finishes. Throws the first failure (`error`, if it is the first).
   */
  async close(error?: unknown): Promise<void> {
    if (error === undefined && this.#failure === null) this.#endCurrent();
    // An `error` stops the reading, not the writing: the pages read whole and the batches of the page being
    // read that were already handed on are still stored, as a one-page-at-a-time import stored them, so a
    // cut-off export keeps what it held and running the import again resumes after it. Only a failure of
    // the writing itself (a page's request) stops the requests not yet made.
    const current = this.#current?.stored();
    await Promise.all([...this.#finishing.values(), current]);
    if (error !== undefined) this.#fail(error);
    this.#throwIfFailed();
  }

  async #startPage(title: string): Promise<void> {
    this.#endCurrent();
    while (this.#finishing.size >= this.options.concurrency) {
      await Promise.race(this.#finishing.values());
      this.#throwIfFailed();
    }
    const normalized = normalizeTitle(title);
    const key = normalized.ok ? normalized.key : title;
    this.counts.pages.add(key);
    this.#current = new PageWriter(this.#context, title, key, this.#lastOfKey.get(key) ?? Promise.resolve());
  }

  #endCurrent(): void {
    const writer = this.#current;
    if (writer === null) return;
    writer.end();
    this.#current = null;
    const stored = writer.stored();
    this.#lastOfKey.set(writer.key, stored);
    this.#finishing.set(
      writer,
      stored.then(() => {
        this.#finishing.delete(writer);
        if (this.#lastOfKey.get(writer.key) === stored) this.#lastOfKey.delete(writer.key);
        if (this.#failure !== null) return;
        this.counts.pagesDone++;
        this.options.onProgress?.();
      }),
    );
  }

  #fail(error: unknown): void {
    this.#failure ??= { error };
  }

  #throwIfFailed(): void {
    if (this.#failure !== null) throw this.#failure.error;
  }
}
