/**
 * The write API, mounted at /api. Every route needs a write-scope token.
 *
 *   POST   /api/pages/{title}/revisions            append revisions (batch, all or none)
 *   PUT    /api/pages/{title}/revisions/{id}/suppression   {"suppressed": true|false}
 *   DELETE /api/pages/{title}                       delete the page
 *   GET    /api/pages/{title}/stats                 storage figures
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { settingsOf } from "../../src/config/settings.ts";
import { requireWriteScope } from "../../src/http/auth.ts";
import { jsonBody, limitBody } from "../../src/http/json-body.ts";
import { ProblemError } from "../../src/http/problem.ts";
import { storeProblem } from "../../src/http/store-problem.ts";
import { parseOr422 } from "../../src/http/validate.ts";
import { LIMITS } from "../../src/limits.ts";
import { CONTENT_MODELS, isContentModel } from "../../src/page/content-model.ts";
import { pageExists } from "../../src/page/directory.ts";
import { pageRef, pageStore, type PageRef } from "../../src/page/page-ref.ts";
import type { StoreRevision } from "../../src/page/types.ts";
import { coloOf } from "../../src/sim/colo.ts";
import { LowerTier, type PageFloor } from "../../src/tiers/lower-tier.ts";
import { topologyOf } from "../../src/config/topology.ts";

const revisionId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const isoSecond = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

const revisionSchema = z.object({
  id: revisionId,
  parentId: revisionId.nullable(),
  timestamp: z.string().regex(isoSecond, "must be YYYY-MM-DDTHH:MM:SSZ").refine((s) => !Number.isNaN(Date.parse(s)) && new Date(s).toISOString().replace(".000Z", "Z") === s, "is not a real date and time"),
  contributor: z.string().max(LIMITS.page.maxContributorBytes),
  comment: z.string().max(LIMITS.page.maxCommentBytes),
  model: z.string().refine(isContentModel, `must be one of ${Object.keys(CONTENT_MODELS).join(", ")}`),
  format: z.string().max(64).optional(),
  text: z.string(),
  sha1: z.string().regex(/^[0-9a-z]{31}$/, "must be a 31-digit base-36 SHA-1").nullable().optional(),
});

const appendSchema = z.object({ revisions: z.array(revisionSchema).min(1) });

export const writeRoutes = new Hono<{ Bindings: Env }>();
writeRoutes.use(requireWriteScope());

/**
 * Purges the local tier (the design's ingest step 4): the colo that took a
 * write serves it at once. Other colos get the purge from the queues.
 */
async function purgeHere(c: Context<{ Bindings: Env }>, colo: string, page: string, floor: Partial<PageFloor>): Promise<void> {
  const lower = await LowerTier.open(colo, topologyOf(c.env), settingsOf(c.env));
  await lower.raiseFloor(page, floor);
}

/** The page's PageStore, if the page was ever written; asking never creates one. */
async function existingStore(env: Env, ref: PageRef) {
  if (!(await pageExists(env, ref.key))) {
    throw new ProblemError({ status: 404, code: "page_not_found", title: "Not Found", detail: "no such page in the archive", extensions: { page: ref.title } });
  }
  return pageStore(env, ref);
}

/** A revision id from the path: digits only, and never one that would round (2^53 − 1 at most). */
function revisionIdParam(text: string): number {
  if (!/^\d{1,20}$/.test(text) || BigInt(text) < 1n || BigInt(text) > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ProblemError({ status: 422, code: "invalid_field", title: "Unprocessable Content", detail: `revision id ${text.slice(0, 40)} is not an integer in 1..${Number.MAX_SAFE_INTEGER}`, extensions: { field: "id" } });
  }
  return Number(text);
}

writeRoutes.post("/pages/:title/revisions", limitBody("storage.maxRequestBytes"), async (c) => {
  const ref = pageRef(c.req.param("title"));
  const body = await jsonBody(c);
  const count = (body as { revisions?: unknown[] })?.revisions?.length ?? 0;
  if (count > LIMITS.storage.maxBatchRevisions) {
    throw new ProblemError({ status: 413, code: "batch_too_large", title: "Content Too Large", detail: `${count} revisions in one request`, limit: "storage.maxBatchRevisions" });
  }
  const { revisions } = parseOr422(appendSchema, body, `page ${ref.title}`);
  const encoder = new TextEncoder();
  // As UTF-8, a text crosses RPC at its wire size; as a JS string it could take twice that.
  const stored: StoreRevision[] = revisions.map((r) => ({ ...r, model: r.model as StoreRevision["model"], text: encoder.encode(r.text) }));
  const { colo, region } = coloOf(c.req.raw, c.env);
  const result = await pageStore(c.env, ref).append(ref.title, stored, region);
  if (!result.ok) throw storeProblem(result, ref.title);
  await purgeHere(c, colo, ref.key, { mutable: result.version });
  return c.json({ page: ref.title, ...result, ok: undefined }, result.created.length > 0 ? 201 : 200);
});

writeRoutes.put("/pages/:title/revisions/:id/suppression", limitBody("http.maxSmallBodyBytes"), async (c) => {
  const ref = pageRef(c.req.param("title"));
  const id = revisionIdParam(c.req.param("id"));
  const { suppressed } = parseOr422(z.object({ suppressed: z.boolean() }), await jsonBody(c), "suppression");
  const { colo, region } = coloOf(c.req.raw, c.env);
  const result = await (await existingStore(c.env, ref)).setSuppressed(id, suppressed, region);
  if (!result.ok) throw storeProblem(result, ref.title);
  await purgeHere(c, colo, ref.key, { all: result.version });
  return c.json({ page: ref.title, revision: result.revision, purges: result.purges });
});

writeRoutes.delete("/pages/:title", async (c) => {
  const ref = pageRef(c.req.param("title"));
  const { colo, region } = coloOf(c.req.raw, c.env);
  const result = await (await existingStore(c.env, ref)).deletePage(region);
  if (!result.ok) throw storeProblem(result, ref.title);
  await purgeHere(c, colo, ref.key, { all: result.version });
  return c.json({ page: ref.title, deleted: true, revisions: result.revisions, purges: result.purges });
});

writeRoutes.get("/pages/:title/stats", async (c) => {
  const ref = pageRef(c.req.param("title"));
  return c.json(await (await existingStore(c.env, ref)).stats());
});
