/**
 * The write API, mounted at /api. Every route needs a write-scope token.
 *
 *   POST   /api/pages/{title}/revisions            append revisions (batch, all or none)
 *   PUT    /api/pages/{title}/revisions/{id}/suppression   {"suppressed": true|false}
 *   DELETE /api/pages/{title}                       delete the page
 *   GET    /api/pages/{title}/stats                 storage figures
 */
import { Hono } from "hono";
import { z } from "zod";
import { requireWriteScope } from "../../src/http/auth.ts";
import { ProblemError } from "../../src/http/problem.ts";
import { storeProblem } from "../../src/http/store-problem.ts";
import { parseOr422 } from "../../src/http/validate.ts";
import { LIMITS } from "../../src/limits.ts";
import { CONTENT_MODELS, isContentModel } from "../../src/page/content-model.ts";
import { pageRef, pageStore } from "../../src/page/page-ref.ts";
import type { NewRevision } from "../../src/page/types.ts";
import { coloOf } from "../../src/sim/colo.ts";
import { revisionKey } from "../../src/tiers/cache-key.ts";
import { noteLocalWrite } from "../../src/tiers/local-floor.ts";
import { LowerTier } from "../../src/tiers/lower-tier.ts";
import { topologyOf } from "../../src/tiers/topology.ts";

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

writeRoutes.post("/pages/:title/revisions", async (c) => {
  const ref = pageRef(c.req.param("title"));
  const length = Number(c.req.header("content-length") ?? "0");
  if (length > LIMITS.storage.maxRequestBytes) {
    throw new ProblemError({ status: 413, code: "request_too_large", title: "Content Too Large", detail: `${length} bytes`, limit: "storage.maxRequestBytes" });
  }
  if (!(c.req.header("content-type") ?? "").includes("application/json")) {
    throw new ProblemError({ status: 415, code: "unsupported_media_type", title: "Unsupported Media Type", detail: "send application/json" });
  }
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new ProblemError({ status: 400, code: "malformed_json", title: "Bad Request", detail: "the body is not valid JSON" });
  }
  const count = (body as { revisions?: unknown[] })?.revisions?.length ?? 0;
  if (count > LIMITS.storage.maxBatchRevisions) {
    throw new ProblemError({ status: 413, code: "batch_too_large", title: "Content Too Large", detail: `${count} revisions in one request`, limit: "storage.maxBatchRevisions" });
  }
  const { revisions } = parseOr422(appendSchema, body, `page ${ref.title}`);
  const { colo, region } = coloOf(c.req.raw, c.env);
  const result = await pageStore(c.env, ref).append(ref.title, revisions as NewRevision[], region);
  if (!result.ok) throw storeProblem(result, ref.title);
  noteLocalWrite(colo, ref.key, result.version);
  return c.json({ page: ref.title, ...result, ok: undefined }, result.created.length > 0 ? 201 : 200);
});

writeRoutes.put("/pages/:title/revisions/:id/suppression", async (c) => {
  const ref = pageRef(c.req.param("title"));
  const id = parseOr422(z.coerce.number().int().positive(), c.req.param("id"), "revision id");
  const { suppressed } = parseOr422(z.object({ suppressed: z.boolean() }), await c.req.json().catch(() => null), "suppression");
  const { colo, region } = coloOf(c.req.raw, c.env);
  const result = await pageStore(c.env, ref).setSuppressed(id, suppressed, region);
  if (!result.ok) throw storeProblem(result, ref.title);
  noteLocalWrite(colo, ref.key, result.version);
  await (await LowerTier.open(colo, topologyOf(c.env))).delete(revisionKey(ref.key, id).key);
  return c.json({ page: ref.title, revision: result.revision, purges: result.purges });
});

writeRoutes.delete("/pages/:title", async (c) => {
  const ref = pageRef(c.req.param("title"));
  const { colo, region } = coloOf(c.req.raw, c.env);
  const result = await pageStore(c.env, ref).deletePage(region);
  if (!result.ok) throw storeProblem(result, ref.title);
  noteLocalWrite(colo, ref.key, result.version);
  return c.json({ page: ref.title, deleted: true, revisions: result.revisions, purges: result.purges });
});

writeRoutes.get("/pages/:title/stats", async (c) => {
  const ref = pageRef(c.req.param("title"));
  return c.json(await pageStore(c.env, ref).stats());
});
