/**
 * A page's history as a MediaWiki export (`GET /page/{title}/export`),
 * streamed: the PageStore plans the answer (which revisions, within
 * `export.maxRevisions` and `export.maxBytes`, and where the next answer
 * starts), then hands over its revisions `export.batchRevisions` at a time,
 * and each batch's contents are read from the blobs in this isolate
 * (src/storage/revision-reader.ts, one decode per stored stream) and written
 * out as XML (./export-xml.ts) as the client reads. Memory holds one batch's
 * metadata, one stored stream's decode and one piece of escaped text.
 *
 * A backup's export (`export.maxBytes` of text, suppressed content
 * included) and an anonymous answer too big for a tier entry stream from
 * here, made per request and sent `no-store`; an anonymous answer that fits
 * one is made whole by ./export-answer.ts and kept in the tiers. A failure
 * once the body has started (the page deleted under it, a blob gone) ends
 * the stream with an error, so the client sees a cut export, never a
 * complete-looking wrong one.
 *
 * @example
 * const { body, next } = await exportPage(env, {
 *   ref, start: null, dir: "asc", limit: 1000, withSuppressed: true, maxBytes: LIMITS.export.maxBytes,
 * });
 */
import { pageStoreOf } from "../bindings.ts";
import { ProblemError } from "../http/problem.ts";
import { LIMITS } from "../limits.ts";
import { pageExists } from "../page/directory.ts";
import { namespaceOf } from "../page/namespace.ts";
import type { PageRef } from "../page/page-ref.ts";
import { storeProblem } from "../page/store-problem.ts";
import type { ExportAnswer, ExportBatch, ExportDirection, ExportPlan, ExportStart } from "../page/export-types.ts";
import { concatChunks } from "../codec/runtime/stream-io.ts";
import { BlobStore } from "../storage/blob-store.ts";
import { readContentsInOrder, type ContentLocation } from "../storage/revision-reader.ts";
import { EXPORT_TAIL, exportHead, PAGE_DELETED, PAGE_TAIL, pageHead, revisionXml, stablePageId } from "./export-xml.ts";

export interface ExportRequest {
  ref: PageRef;
  start: ExportStart | null;
  dir: ExportDirection;
  limit: number;
  /** Whether suppressed revisions' content is written (a `backup` token asked). */
  withSuppressed: boolean;
  /**
   * Bytes of text the answer carries at most: `export.maxBytes` for a backup, `export.anonymousMaxBytes` for anyone.
   */
  maxBytes: number;
}

export interface PageExport {
  title: string;
  /** Revisions the body holds. */
  count: number;
  /** The offset the next answer starts from, if the history goes on. */
  next: string | null;
  body: ReadableStream<Uint8Array>;
}

const encoder = new TextEncoder();
/** Bytes the body is sent in, at least: one escaped piece of text is at most 5 × 64 KiB. */
const CHUNK_BYTES = 256 * 1024;

function isProblem(answer: ExportAnswer): answer is Extract<ExportAnswer, { ok: false }> {
  return "ok" in answer && answer.ok === false;
}

/** The PageStore's plan for an answer: which revisions, and where the next answer starts. */
export async function planExport(env: Env, req: ExportRequest): Promise<ExportPlan> {
  const notFound = () =>
    new ProblemError({
      status: 404,
      code: "page_not_found",
      detail: "no such page in the archive",
      extensions: { page: req.ref.title },
    });
  // A title nobody wrote is answered without waking (and so creating) its PageStore.
  if (!(await pageExists(env, req.ref.key))) throw notFound();
  const store = pageStoreOf(env, req.ref.key);
  const planned = await store.exportRevisions({
    kind: "plan",
    start: req.start,
    dir: req.dir,
    limit: req.limit,
    maxBytes: req.maxBytes,
    withSuppressed: req.withSuppressed,
  });
  if (isProblem(planned)) throw storeProblem(planned, req.ref.title);
  return planned as ExportPlan;
}

export async function exportPage(env: Env, req: ExportRequest, planned?: ExportPlan): Promise<PageExport> {
  const plan = planned ?? (await planExport(env, req));
  const chunks = exportChunks(env, req, plan);
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          // Pieces are gathered into chunks of about CHUNK_BYTES: a stream of small chunks is slow to
          // pass along and to compress (wrangler dev's gzip of it ran at 0.5 MB/s).
          const pieces: Uint8Array[] = [];
          let size = 0;
          let done = false;
          while (size < CHUNK_BYTES) {
            const next = await chunks.next();
            if (next.done) {
              done = true;
              break;
            }
            pieces.push(next.value);
            size += next.value.byteLength;
          }
          if (size > 0) controller.enqueue(pieces.length === 1 ? pieces[0]! : concatChunks(pieces));
          if (done) controller.close();
        } catch (err) {
          console.error("export failed part way", req.ref.key, err);
          controller.error(err);
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return { title: plan.title, count: plan.count, next: plan.next, body };
}

/** The answer's XML, a piece at a time, as its revisions are read. */
export async function* exportChunks(env: Env, req: ExportRequest, plan: ExportPlan): AsyncGenerator<Uint8Array> {
  const pageId = plan.wikiPageId ?? (await stablePageId(req.ref.key));
  yield encoder.encode(exportHead() + pageHead(plan.title, namespaceOf(req.ref.key), pageId));
  const store = pageStoreOf(env, req.ref.key);
  const blobs = new BlobStore(env.BLOBS);
  const range = plan.range;
  let remaining = plan.count;
  let from = range?.from ?? 0;
  const step = req.dir === "asc" ? 1 : -1;
  while (range && remaining > 0) {
    const answer = await store.exportRevisions({
      kind: "batch",
      from,
      to: range.to,
      limit: Math.min(remaining, LIMITS.export.batchRevisions),
      withSuppressed: req.withSuppressed,
    });
    if (isProblem(answer)) throw storeProblem(answer, req.ref.title);
    const batch = answer as ExportBatch;
    if (batch.lastSeq === null || batch.revisions.length === 0) break;
    const located = batch.revisions.flatMap((r) => (r.location ? [r.location] : ([] as ContentLocation[])));
    const contents = readContentsInOrder(blobs, located);
    for (const exported of batch.revisions) {
      let content: Uint8Array | null = null;
      if (exported.location) {
        const next = await contents.next();
        if (next.done) throw new Error(`the content of revision ${exported.revision.id} was not read`);
        content = next.value;
      }
      yield* revisionXml(exported, content);
    }
    remaining -= batch.revisions.length;
    from = batch.lastSeq + step;
  }
  yield encoder.encode((plan.deleted ? PAGE_DELETED : "") + PAGE_TAIL + EXPORT_TAIL);
}
