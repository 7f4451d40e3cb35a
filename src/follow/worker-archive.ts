/**
 * The archive as the deployment's wiki follower sees it (src/follow/cron-pass.ts):
 * the same writes the write API makes (src/writes/page-writes.ts), each
 * revision checked against the write API's own schema, in batches no
 * bigger than one write request may be. Titles are the wiki's; the archive
 * normalises them as the write API does. What the write API would refuse
 * (a 4xx problem other than 408/429: a title, a revision's schema, a limit,
 * a conflict) is thrown as an {@link ArchiveRefusal}, which the follower
 * records and skips; anything else fails the pass.
 *
 * @example
 * await followOnce({ api, archive: workerArchive(env), cursors });
 */
import { coloWithoutRequest } from "../config/colo.ts";
import { LIMITS } from "../limits.ts";
import { pageExists } from "../page/directory.ts";
import { pageRef } from "../page/page-ref.ts";
import { appendRevisions, setPageDeleted, setRevisionHidden } from "../writes/page-writes.ts";
import { newRevisionSchema } from "../writes/revision-schema.ts";
import type { NewRevision } from "../page/types.ts";
import { pageStoreOf } from "../bindings.ts";
import { ProblemError } from "../http/problem.ts";
import { invalid } from "../http/invalid.ts";
import { ArchiveRefusal, isRefusalStatus, refusalsOf, type FollowArchive } from "./follower.ts";

const encoder = new TextEncoder();

function checked(revision: NewRevision): NewRevision {
  const result = newRevisionSchema.safeParse(revision);
  if (result.success) return result.data;
  // The problem the write API would answer (its status and code), naming the revision.
  const problem = invalid(result.error.issues, `revision ${revision.id}`);
  throw new ArchiveRefusal(problem.status, problem.code, problem.detail ?? problem.title, revision.id);
}

/** A write API problem that refuses what was sent (naming its revision, if it does). */
function asRefusal(err: unknown): ArchiveRefusal | null {
  if (!(err instanceof ProblemError) || !isRefusalStatus(err.status)) return null;
  const revision = err.extensions.revision;
  return new ArchiveRefusal(
    err.status,
    err.code,
    err.detail ?? err.title,
    typeof revision === "number" ? revision : undefined,
  );
}

/** Who the takedown log names for what the deployment's follower mirrors: the wiki it follows. */
const followerName = (env: Env) => `follower of ${env.FOLLOW_WIKI_API}`;

export function workerArchive(env: Env): FollowArchive {
  const colo = coloWithoutRequest(env);
  const archive: FollowArchive = {
    async latestId(title) {
      const ref = pageRef(title);
      if (!(await pageExists(env, ref.key))) return null;
      const page = await pageStoreOf(env, ref.key).history({}, 1);
      return "revisions" in page ? (page.revisions[0]?.id ?? null) : null;
    },
    async append(title, revisions, wikiPageId) {
      const ref = { ...pageRef(title), ...(wikiPageId !== undefined ? { wikiPageId } : {}) };
      let batch: NewRevision[] = [];
      let bytes = 0;
      const flush = async () => {
        if (batch.length > 0) await appendRevisions(env, colo, ref, batch);
        batch = [];
        bytes = 0;
      };
      for (const revision of revisions) {
        const r = checked(revision);
        const size = encoder.encode(r.text).byteLength + 1024;
        if (
          batch.length > 0 &&
          (batch.length >= LIMITS.storage.maxBatchRevisions || bytes + size > LIMITS.storage.maxRequestBytes)
        )
          await flush();
        batch.push(r);
        bytes += size;
      }
      await flush();
    },
    async setHidden(title, id, change, reason) {
      const ref = pageRef(title);
      if (!(await pageExists(env, ref.key))) return false;
      try {
        await setRevisionHidden(env, colo, ref, id, change, { by: followerName(env), reason });
        return true;
      } catch (err) {
        if ((err as { status?: number }).status === 404) return false;
        throw err;
      }
    },
    async setDeleted(title, deleted, reason) {
      const ref = pageRef(title);
      if (!(await pageExists(env, ref.key))) return false;
      await setPageDeleted(env, colo, ref, deleted, { by: followerName(env), reason });
      return true;
    },
  };
  return refusalsOf(archive, asRefusal);
}
