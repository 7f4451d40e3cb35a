/**
 * Reads one revision: asks the page's PageStore where it lives, then fetches
 * and decodes its blobs in the caller's isolate, never in the PageStore, so
 * one page's reads do not pile onto one object. The caller is the upper
 * tier on a miss (the tier chain's last hop, src/tiers/chain.ts), or the
 * edge itself when every tier was gone around. The upper tier decodes about
 * one read in six under the Zipf mix, against nearly every read if the edge
 * decoded; README, "Where a revision is decoded", has the measurement.
 */
import { pageStoreOf } from "../bindings.ts";
import { HopTimer } from "../http/server-timing.ts";
import { ProblemError } from "../http/problem.ts";
import { storeProblem } from "../page/store-problem.ts";
import { LIMITS } from "../limits.ts";
import type { PageRef } from "../page/page-ref.ts";
import type { LocateResult, RevisionMeta, RevisionSelector } from "../page/types.ts";
import { backoffMs, sleep } from "../lib/backoff.ts";
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

/** `timer` takes the read's locate, do, blob, decode and hash hops (src/http/server-timing.ts). */
export async function readRevision(
  env: Env,
  ref: PageRef,
  selector: RevisionSelector,
  timer = new HopTimer(),
): Promise<RevisionRead> {
  const locateStart = performance.now();
  const found = await pageStoreOf(env, ref.key).locate(selector);
  const locateMs = performance.now() - locateStart;
  timer.add("locate", locateMs);
  if (found.ok && found.queryMs !== undefined) timer.add("do", Math.max(0, locateMs - found.queryMs));
  return readLocated(env, ref, found, timer);
}

/**
 * Reads a revision the PageStore has located (or throws the problem it answered instead); `timer` takes its blob,
 * decode and hash hops.
 */
export async function readLocated(
  env: Env,
  ref: PageRef,
  found: LocateResult,
  timer = new HopTimer(),
): Promise<RevisionRead> {
  if (!found.ok) throw storeProblem(found, ref.title);
  const blobs = new BlobStore(env.BLOBS);
  const where = { page: found.title, revision: found.revision.id };
  for (let attempt = 0; ; attempt++) {
    try {
      const { bytes, stats, timings } = await readContent(blobs, found.location);
      timer.merge(timings);
      return { title: found.title, revision: found.revision, body: bytes, stats, version: found.version };
    } catch (err) {
      // A blob written moments ago in another data centre may not show in KV here yet.
      if (err instanceof BlobMissingError && attempt + 1 < LIMITS.storage.blobReadAttempts) {
        await sleep(
          (LIMITS.storage.blobRetryBaseMs * 2 ** attempt) / 2 +
            backoffMs(attempt, LIMITS.storage.blobRetryBaseMs, 2_000),
        );
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
