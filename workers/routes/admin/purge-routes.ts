/**
 * The purge API, mounted at /api, in the shape of Cloudflare's.
 *
 *   POST /api/purges              purge (purge scope): files | tags | prefixes | hosts | purge_everything, + soft
 *   GET  /api/purges/{id}         every tier's acknowledgement; ?wait=N blocks up to N s for completion
 *   GET  /api/purges?before=…     the audit log, newest first (purge scope)
 *
 * A write's purge ids (from the write API) can be followed with a write-scope
 * token too; an operator's purge, like the audit log, needs the purge scope
 * (src/purge/status.ts, mayView).
 */
import { Hono } from "hono";
import type { AuditPageBody, PurgeReceiptBody, PurgeStatusBody } from "../../../src/wire.ts";
import { z } from "zod";
import type { AppEnv } from "../../app-env.ts";
import { requireScope, type AuthVariables } from "../../middleware/require-scope.ts";
import { jsonBody } from "../../middleware/json-body.ts";
import { validated } from "../../middleware/validated.ts";
import { LIMITS } from "../../../src/limits.ts";
import { listAudit } from "../../../src/purge/audit.ts";
import { ingestPurge } from "../../../src/purge/ingest.ts";
import { purgeViewFor } from "../../../src/purge/status.ts";
import { withColo } from "../../middleware/with-colo.ts";

type PurgeEnv = AppEnv & { Variables: AuthVariables };

export const purgeRoutes = new Hono<PurgeEnv>();

purgeRoutes.post("/purges", requireScope("purge"), withColo, jsonBody("purge.maxRequestBytes"), async (c) => {
  const receipt = await ingestPurge(c.env, c.get("colo"), c.get("principal"), await c.req.json(), c.req.url);
  // `success` and `result` as Cloudflare's API answers, so scripts that check them keep working.
  return c.json(
    { success: true, errors: [], messages: [], result: { id: receipt.id }, ...receipt } satisfies PurgeReceiptBody,
    202,
  );
});

const waitQuery = z.object({
  wait: z
    .string()
    .regex(/^\d{1,3}$/, "must be whole seconds")
    .transform(Number)
    .refine((n) => n <= LIMITS.purge.maxWaitSeconds, `must be at most ${LIMITS.purge.maxWaitSeconds}`)
    .optional(),
});

purgeRoutes.get(
  "/purges/:id",
  requireScope("purge", "write"),
  validated("query", waitQuery, "wait", { wait: { status: 400, code: "invalid_wait", limit: "purge.maxWaitSeconds" } }),
  async (c) => {
    const { wait = 0 } = c.req.valid("query");
    return c.json((await purgeViewFor(c.env, c.req.param("id"), c.get("principal"), wait)) satisfies PurgeStatusBody);
  },
);

purgeRoutes.get(
  "/purges",
  requireScope("purge"),
  validated("query", z.object({ before: z.string().optional() }), "audit"),
  async (c) => {
    const before = c.req.valid("query").before;
    const page = await listAudit(c.env, before === undefined ? {} : { before });
    const next = page.next === null ? null : new URL(`/api/purges?before=${page.next}`, c.req.url).toString();
    if (next) c.header("link", `<${next}>; rel="next"`);
    return c.json({ ...page, links: { next } } satisfies AuditPageBody);
  },
);
