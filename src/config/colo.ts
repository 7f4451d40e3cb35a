/**
 * Which data centre a request arrived at. In production that is
 * `request.cf.colo`; in local development and tests the dev-only header
 * `x-palimpsest-colo` picks one, so every colo runs in one workerd.
 * Production refuses the header rather than let clients steer the tiers.
 * Routes get it once per request from workers/middleware/with-colo.ts.
 */
import { settingsOf } from "./settings.ts";
import { ProblemError } from "../http/problem.ts";
import { topologyOf, type Region } from "./topology.ts";

export const COLO_HEADER = "x-palimpsest-colo";

export interface Colo {
  colo: string;
  region: Region;
}

export function coloOf(request: Request, env: Env): Colo {
  const topology = topologyOf(env);
  const simulated = request.headers.get(COLO_HEADER);
  const development = settingsOf(env).development;
  if (simulated !== null && !development) {
    throw new ProblemError({
      status: 400,
      code: "simulation_disabled",
      detail: `${COLO_HEADER} is accepted only in development`,
    });
  }
  const colo = (simulated ?? (request as Request & { cf?: { colo?: string } }).cf?.colo ?? "").toUpperCase();
  const region = topology.regionOfColo.get(colo);
  if (region) return { colo, region };
  if (simulated !== null) {
    throw new ProblemError({
      status: 400,
      code: "unknown_colo",
      detail: `colo ${simulated} is not in TOPOLOGY; known: ${[...topology.regionOfColo.keys()].join(" ")}`,
    });
  }
  // An unmapped real colo (or none, under plain wrangler dev) is served by the upper tier's region.
  return { colo: colo || "LOCAL", region: topology.upperRegion };
}

/** Where work that no request brought (a Cron Trigger) runs: as an unmapped colo, the upper tier's region. */
export function coloWithoutRequest(env: Env): Colo {
  return { colo: "LOCAL", region: topologyOf(env).upperRegion };
}
