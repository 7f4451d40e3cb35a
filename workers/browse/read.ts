/**
 * Reads for the browse pages, through the same tiers and cache keys as the
 * JSON API (src/tiers/chain.ts), so a page costs no origin work the API's
 * answer would not. A non-200 answer becomes the same problem, thrown, for
 * the one error handler (and problem-pages.tsx) to show.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ProblemError, type ProblemStatus } from "../../src/http/problem.ts";
import type { OriginQuery } from "../../src/origin/answer.ts";
import type { PageRef } from "../../src/page/page-ref.ts";
import { coloOf } from "../../src/config/colo.ts";
import { readThroughTiers, type ReadThrough } from "../../src/tiers/chain.ts";
import { canonicalTitle } from "../../src/page/canonical-title.ts";

export type BrowseEnv = AppEnv & { Variables: { ref: PageRef } };

/** The page's one URL (see canonical-title.ts), and the colo the read goes through. */
export function canonicalPage(rest: (c: Context<BrowseEnv>) => string): MiddlewareHandler<BrowseEnv> {
  const canonical = canonicalTitle<BrowseEnv>(rest);
  return (c, next) =>
    canonical(c, async () => {
      c.set("colo", coloOf(c.req.raw, c.env));
      await next();
    });
}

/** The answer's body, or its problem thrown. */
export async function readOk(c: Context<BrowseEnv>, query: OriginQuery): Promise<{ through: ReadThrough; body: Uint8Array }> {
  const through = await readThroughTiers(c.env, c.executionCtx, c.get("colo"), query);
  const { entry } = through;
  if (entry.status === 200) return { through, body: entry.body };
  let problem: Record<string, unknown> = {};
  try {
    problem = JSON.parse(new TextDecoder().decode(entry.body)) as Record<string, unknown>;
  } catch {
    // Not a problem body: the status alone says what happened.
  }
  if (entry.status >= 500) console.error("browse read failed", { requestId: c.get("requestId"), path: c.req.path, code: problem.code });
  const { type: _type, status: _status, title, detail, code, limit: _limit, ...extensions } = problem;
  const retryAfter = entry.headers["retry-after"];
  throw new ProblemError({
    status: entry.status as ProblemStatus,
    code: typeof code === "string" ? code : `http_${entry.status}`,
    title: typeof title === "string" ? title : "Error",
    ...(typeof detail === "string" ? { detail } : {}),
    extensions: { ...extensions, ...(retryAfter ? { retryAfterSeconds: Number(retryAfter) } : {}) },
  });
}
