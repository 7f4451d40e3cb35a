/**
 * Development only: cut a TierCache off and restore it from outside the
 * Worker, so a benchmark running against a local Worker can kill a tier
 * mid-run (`palimpsest bench purge`). Refused (404) unless
 * `ENVIRONMENT = "development"`, and only with a purge-scope token.
 *
 *   PUT /api/dev/faults/tiers/{tier}   {"unavailable": true} | {"delayMs": 200} | {} (restore)
 *
 * `{tier}` is a tier's name as GET /api/purges/{id} lists it: `weur/weur-a`,
 * `upper/enam-b` (the slash URL-encoded or not).
 *
 * @example
 * curl -X PUT -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \
 *   -d '{"unavailable": true}' localhost:8787/api/dev/faults/tiers/weur%2Fweur-a
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../app-env.ts";
import { allTiers, tierCacheOf, tierName } from "../../../src/bindings.ts";
import { developmentOnly } from "../../middleware/development-only.ts";
import { requireScope } from "../../middleware/require-scope.ts";
import { jsonBody } from "../../middleware/json-body.ts";
import { ProblemError } from "../../../src/http/problem.ts";
import { validated } from "../../middleware/validated.ts";

export const devFaultRoutes = new Hono<AppEnv>();

// Before authentication: in production the route does not exist, whoever asks.
devFaultRoutes.use("/dev/*", developmentOnly);

/** The tier's name from its path segment, or null when its escapes are not UTF-8 (`%ff`): no tier has such a name. */
function decodedTier(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

const faults = z.strictObject({
  unavailable: z.boolean().optional(),
  delayMs: z.number().int().min(0).max(60_000).optional(),
});

devFaultRoutes.put(
  "/dev/faults/tiers/:tier{.+}",
  requireScope("purge"),
  jsonBody("http.maxSmallBodyBytes"),
  validated("json", faults, "tier faults"),
  async (c) => {
    const name = decodedTier(c.req.param("tier"));
    const tier = name === null ? undefined : allTiers(c.env).find((t) => tierName(t) === name);
    if (!tier)
      throw new ProblemError({
        status: 404,
        code: "unknown_tier",
        detail: `no TierCache ${(name ?? c.req.param("tier")).slice(0, 80)} in TOPOLOGY`,
      });
    const set = c.req.valid("json");
    await tierCacheOf(c.env, tier).setFaults(set);
    return c.json({ tier: name, faults: set });
  },
);
