/**
 * Reads for the browse pages, through the same tiers and cache keys as the
 * JSON API (src/tiers/chain.ts), so a page costs no origin work the API's
 * answer would not. A JSON answer comes back as its kind's type
 * (src/origin/answer-body.ts); a non-200 answer becomes the same problem,
 * thrown, for the one error handler (and workers/middleware/problem-pages.tsx)
 * to show. A page made from an answer goes out with `renderedHeaders`
 * (src/tiers/respond.ts).
 */
import type { Context } from "hono";
import type { AppEnv } from "../../app-env.ts";
import type { OriginQuery } from "../../../src/origin/answer.ts";
import type { AnswerBodies, JsonKind } from "../../../src/origin/answer-body.ts";
import type { PageRef } from "../../../src/page/page-ref.ts";
import { readThroughTiers, type ReadThrough } from "../../../src/tiers/chain.ts";
import { okJson, problemOf, type Asker } from "../../../src/tiers/respond.ts";

export type BrowseEnv = AppEnv & { Variables: { ref: PageRef } };

const askerOf = (c: Context<BrowseEnv>): Asker => ({ request: c.req.raw, requestId: c.get("requestId") });

const read = (c: Context<BrowseEnv>, query: OriginQuery) =>
  readThroughTiers(c.env, c.executionCtx, c.get("colo"), query);

/** A JSON answer as its kind's type, or its problem thrown. */
export async function readJson<Q extends Extract<OriginQuery, { kind: JsonKind }>>(
  c: Context<BrowseEnv>,
  query: Q,
): Promise<{ through: ReadThrough; value: AnswerBodies[Q["kind"]] }> {
  const through = await read(c, query);
  return { through, value: okJson<Q["kind"]>(askerOf(c), through, query.kind) };
}

/** A revision's bytes, or its problem thrown. */
export async function readRevision(
  c: Context<BrowseEnv>,
  query: Extract<OriginQuery, { kind: "revision" }>,
): Promise<Uint8Array> {
  const through = await read(c, query);
  if (through.entry.status === 200) return through.entry.body;
  throw problemOf(askerOf(c), through);
}
