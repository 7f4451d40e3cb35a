/**
 * The origin of every read: asks the page's PageStore where a revision lives,
 * then fetches and decodes its blobs here at the edge, so decoding work
 * spreads across data centres instead of piling on one Durable Object.
 * The tiered cache (a later layer) wraps a {@link RevisionSource}.
 */
import { storeProblem } from "../http/store-problem.ts";
import { ProblemError } from "../http/problem.ts";
import { LIMITS } from "../limits.ts";
import { backoffMs, sleep } from "../retry/backoff.ts";
import { pageStore, type PageRef } from "../page/page-ref.ts";
import type { RevisionMeta, RevisionSelector } from "../page/types.ts";
import { BlobMissingError, BlobStore } from "../storage/blob-store.ts";
import { readContent, type ReadStats } from "../storage/revision-reader.ts";

export interface RevisionRead {
  title: string;
  /** Page version at the time of the read. */
  version: number;
  revision: RevisionMeta;
  body: Uint8Array;
  stats: ReadStats;
}

export interface RevisionSource {
  read(ref: PageRef, selector: RevisionSelector): Promise<RevisionRead>;
}

export class PageOrigin implements RevisionSource {
  readonly #blobs: BlobStore;

  constructor(private readonly env: Env) {
    this.#blobs = new BlobStore(env.BLOBS);
  }

  async read(ref: PageRef, selector: RevisionSelector): Promise<RevisionRead> {
    const found = await pageStore(this.env, ref).locate(selector);
    if (!found.ok) throw storeProblem(found, ref.title);
    const where = { page: found.title, revision: found.revision.id };
    for (let attempt = 0; ; attempt++) {
      try {
        const { bytes, stats } = await readContent(this.#blobs, found.location);
        return { title: found.title, revision: found.revision, body: bytes, stats, version: found.version };
      } catch (err) {
        // A blob written moments ago in another data centre may not show in KV here yet.
        if (err instanceof BlobMissingError && attempt + 1 < LIMITS.storage.blobReadAttempts) {
          await sleep(LIMITS.storage.blobRetryBaseMs * 2 ** attempt / 2 + backoffMs(attempt, LIMITS.storage.blobRetryBaseMs, 2_000));
          continue;
        }
        // Blob keys stay in the log; the client learns what failed, not where it is stored.
        console.error("revision read failed", found.title, found.revision.id, err);
        if (err instanceof BlobMissingError) {
          throw new ProblemError({
            status: 503,
            code: "revision_not_yet_available",
            title: "Revision not yet available",
            detail: `page ${found.title} revision ${found.revision.id} was stored moments ago and has not reached this data centre yet; try again shortly`,
            extensions: { ...where, retryAfterSeconds: LIMITS.storage.blobRetryAfterSeconds },
          });
        }
        throw new ProblemError({
          status: 500,
          code: "revision_unreadable",
          title: "Stored revision is unreadable",
          detail: `page ${found.title} revision ${found.revision.id} failed its integrity check`,
          extensions: where,
        });
      }
    }
  }
}
