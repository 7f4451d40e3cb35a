/**
 * The origin of every read: asks the page's PageStore where a revision lives,
 * then fetches and decodes its blobs here at the edge, so decoding work
 * spreads across data centres instead of piling on one Durable Object.
 * The tiered cache (a later layer) wraps a {@link RevisionSource}.
 */
import { storeProblem } from "../http/store-problem.ts";
import { ProblemError } from "../http/problem.ts";
import { pageStore, type PageRef } from "../page/page-ref.ts";
import type { RevisionMeta, RevisionSelector } from "../page/types.ts";
import { BlobStore } from "../storage/blob-store.ts";
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
    try {
      const { bytes, stats } = await readContent(this.#blobs, found.location);
      return { title: found.title, revision: found.revision, body: bytes, stats, version: found.version };
    } catch (err) {
      console.error("revision read failed", ref.title, found.revision.id, err);
      throw new ProblemError({
        status: 500,
        code: "revision_unreadable",
        title: "Stored revision is unreadable",
        detail: `page ${found.title} revision ${found.revision.id}: ${(err as Error).message}`,
        extensions: { page: found.title, revision: found.revision.id },
      });
    }
  }
}
