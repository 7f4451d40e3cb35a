/**
 * Reads for the browse pages, through the same tiers and cache keys as the
 * JSON API (src/tiers/chain.ts), so a page costs no origin work the API's
 * answer would not. A non-200 answer becomes the same problem, thrown, for
 * the one error handler (and workers/middleware/problem-pages.tsx) to show.
 */
import type { Context, MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import type { AppEnv } from "../../app-env.ts";
import type { OriginQuery } from "../../../src/origin/answer.ts";
import type { PageRef } from "../../../src/page/page-ref.ts";
import { readThroughTiers, type ReadThrough } from "../../../src/tiers/chain.ts";
import { problemOf } from "../../../src/tiers/respond.ts";
import { canonicalTitle } from "../../middleware/canonical-title.ts";
import { withColo } from "../../middleware/with-colo.ts";

export type BrowseEnv = AppEnv & { Variables: { ref: PageRef } };

/** The page's one URL (workers/middleware/canonical-title.ts), then the colo the read goes through (with-colo.ts). */
export const canonicalPage = (
  rest: (c: Context<BrowseEnv>) => string,
  prefix: "/page" | "/view" = "/page",
): MiddlewareHandler<BrowseEnv> => every(canonicalTitle<BrowseEnv>(rest, prefix), withColo);

/** What a page read through the tiers says about where it came from, and the Cache-Tag its JSON carries (so a purge by tag reaches it). */
export function tierHeaders(through: ReadThrough): Record<string, string> {
  const tag = through.entry.headers["cache-tag"];
  return {
    "x-palimpsest-tier": through.servedBy,
    "x-palimpsest-colo": through.colo,
    ...(tag ? { "cache-tag": tag } : {}),
  };
}

/** The answer's body, or its problem thrown (src/tiers/respond.ts reads it). */
export async function readOk(
  c: Context<BrowseEnv>,
  query: OriginQuery,
): Promise<{ through: ReadThrough; body: Uint8Array }> {
  const through = await readThroughTiers(c.env, c.executionCtx, c.get("colo"), query);
  if (through.entry.status === 200) return { through, body: through.entry.body };
  throw problemOf({ request: c.req.raw, requestId: c.get("requestId") }, through);
}
