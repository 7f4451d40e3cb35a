/**
 * The write API, mounted at /api. Every route needs a write-scope token.
 *
 *   POST   /api/pages/{title}/revisions[?page_id=N]  append revisions (batch, all or none); page_id: the wiki's
 *   PUT    /api/pages/{title}/revisions/{id}/suppression
 *          {"suppressed"?: bool, "comment"?: bool, "contributor"?: bool, "reason": "…"}
 *                                                   hide or show the revision's content, comment, contributor
 *   PUT    /api/pages/{title}/deletion  {"deleted": true|false, "reason": "…"}
 *                                                   delete the page as MediaWiki does (410 to the public,
 *                                                   everything kept), or restore it
 *   DELETE /api/pages/{title}?reason=…              delete the page for good (its blobs are collected)
 *   GET    /api/pages/{title}/stats                 storage figures (metadataBytes: the page's share of its shard)
 *   GET    /api/storage                             every PageStore shard's SQLite and live blobs, and their sums
 *
 * Each change answers with its purge ids; the colo that took it applies the
 * purge to its own lower tier before answering, so it serves the change at once.
 */
import { Hono } from "hono";
import type {
  DeletionBody,
  PageDeletionBody,
  PageStatsBody,
  StorageBody,
  SuppressionBody,
  WriteBody,
} from "../../../src/wire.ts";
import { LIMITS } from "../../../src/limits.ts";
import { z } from "zod";
import { pageStoreOf, pageStoreShards } from "../../../src/bindings.ts";
import type { AppEnv } from "../../app-env.ts";
import { requireScope, type AuthVariables } from "../../middleware/require-scope.ts";
import { jsonBody } from "../../middleware/json-body.ts";
import { validated } from "../../middleware/validated.ts";
import { isSafeIdDigits } from "../../../src/http/queries.ts";
import { requirePage } from "../../../src/page/directory.ts";
import { pageRef, type PageRef } from "../../../src/page/page-ref.ts";
import { appendRevisions, erasePage, setPageDeleted, setRevisionHidden } from "../../../src/writes/page-writes.ts";
import { newRevisionSchema } from "../../../src/writes/revision-schema.ts";
import { withColo } from "../../middleware/with-colo.ts";

/** A revision id in a path: digits only, and never one that would round (2^53 − 1 at most). */
const revisionIdParam = z
  .string()
  .regex(/^\d{1,20}$/, { message: "must be digits", abort: true })
  .refine((s) => isSafeIdDigits(s.replace(/^0+/, "")), {
    message: `must be an integer in 1..${Number.MAX_SAFE_INTEGER}`,
    params: { status: 422, code: "invalid_field" },
  })
  .transform(Number);

/**
 * A write's body, bounded as it streams in: a batch over the revision count is too large (413)
 * from its 501st element, whatever else is wrong with it, and no body parses into more values
 * than a full batch holds.
 */
const writeBody = jsonBody("storage.maxRequestBytes", {
  values: "storage.maxJsonValues",
  arrays: { revisions: { limit: "storage.maxBatchRevisions", code: "batch_too_large", what: "revisions" } },
});

/** The page's PageStore, if the page was ever written; asking never creates one. */
async function existingStore(env: Env, ref: PageRef) {
  await requirePage(env, ref);
  return pageStoreOf(env, ref.key);
}

export const writeRoutes = new Hono<AppEnv & { Variables: AuthVariables }>();
writeRoutes.use("/pages/*", requireScope("write"), withColo);

writeRoutes.post(
  "/pages/:title/revisions",
  writeBody,
  validated("json", z.object({ revisions: z.array(newRevisionSchema).min(1) }), "revisions"),
  // The page's id on its wiki, when the writer knows it (an import, the follower): the export's `<page><id>`.
  validated(
    "query",
    z.object({ page_id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional() }),
    "page id",
    {
      page_id: { status: 400, code: "invalid_page_id" },
    },
  ),
  async (c) => {
    const { page_id: wikiPageId } = c.req.valid("query");
    const ref = { ...pageRef(c.req.param("title")), ...(wikiPageId !== undefined ? { wikiPageId } : {}) };
    const { revisions } = c.req.valid("json");
    const result = await appendRevisions(c.env, c.get("colo"), ref, revisions);
    const { ok: _ok, ...written } = result;
    return c.json({ page: ref.title, ...written } satisfies WriteBody, result.created.length > 0 ? 201 : 200);
  },
);

/** Why a takedown is made: recorded in the audit log with who made it (src/writes/page-writes.ts). */
const reasonField = z
  .string()
  .trim()
  .min(1, { message: "give the reason for the takedown" })
  .refine((s) => new TextEncoder().encode(s).byteLength <= LIMITS.page.maxReasonBytes, {
    message: `is over page.maxReasonBytes (${LIMITS.page.maxReasonBytes} bytes of UTF-8)`,
    params: { status: 413, code: "reason_too_long" },
  });

writeRoutes.put(
  "/pages/:title/revisions/:id/suppression",
  validated("param", z.object({ title: z.string(), id: revisionIdParam }), "revision id", {
    id: { status: 400, code: "invalid_revision_id" },
  }),
  jsonBody("http.maxSmallBodyBytes"),
  validated(
    "json",
    z
      .object({
        suppressed: z.boolean().optional(),
        comment: z.boolean().optional(),
        contributor: z.boolean().optional(),
        reason: reasonField,
      })
      .refine((b) => b.suppressed !== undefined || b.comment !== undefined || b.contributor !== undefined, {
        message: "name at least one of suppressed, comment, contributor",
      }),
    "suppression",
  ),
  async (c) => {
    const ref = pageRef(c.req.param("title"));
    const { id } = c.req.valid("param");
    const { suppressed, comment, contributor, reason } = c.req.valid("json");
    await existingStore(c.env, ref);
    const result = await setRevisionHidden(
      c.env,
      c.get("colo"),
      ref,
      id,
      { content: suppressed, comment, contributor },
      { by: c.get("principal").name, reason },
    );
    return c.json({ page: ref.title, revision: result.revision, purges: result.purges } satisfies SuppressionBody);
  },
);

writeRoutes.put(
  "/pages/:title/deletion",
  jsonBody("http.maxSmallBodyBytes"),
  validated("json", z.object({ deleted: z.boolean(), reason: reasonField }), "deletion"),
  async (c) => {
    const ref = pageRef(c.req.param("title"));
    const { deleted, reason } = c.req.valid("json");
    await existingStore(c.env, ref);
    const result = await setPageDeleted(c.env, c.get("colo"), ref, deleted, { by: c.get("principal").name, reason });
    return c.json({
      page: ref.title,
      deleted: result.deleted,
      revisions: result.revisions,
      purges: result.purges,
    } satisfies PageDeletionBody);
  },
);

writeRoutes.delete(
  "/pages/:title",
  validated("query", z.object({ reason: reasonField }), "deletion", { reason: { status: 422, code: "invalid_field" } }),
  async (c) => {
    const ref = pageRef(c.req.param("title"));
    const { reason } = c.req.valid("query");
    await existingStore(c.env, ref);
    const result = await erasePage(c.env, c.get("colo"), ref, { by: c.get("principal").name, reason });
    return c.json({
      page: ref.title,
      deleted: true,
      revisions: result.revisions,
      purges: result.purges,
    } satisfies DeletionBody);
  },
);

writeRoutes.get("/pages/:title/stats", async (c) => {
  const ref = pageRef(c.req.param("title"));
  return c.json((await (await existingStore(c.env, ref)).stats()) satisfies PageStatsBody);
});

/** Asks every shard: one call each, so it costs PAGE_STORE_SHARDS calls (an operator's view, not a page's). */
writeRoutes.get("/storage", requireScope("write"), async (c) => {
  const shards = await Promise.all(pageStoreShards(c.env).map((s) => s.storage()));
  const total = { shards: shards.length, databaseBytes: 0, pages: 0, revisions: 0, blobs: 0, blobBytes: 0 };
  for (const s of shards)
    for (const k of ["databaseBytes", "pages", "revisions", "blobs", "blobBytes"] as const) total[k] += s[k];
  return c.json({ total, shards } satisfies StorageBody);
});
