/** What every route sees: the Worker's bindings, the request id, and (once resolved) the colo the request arrived at. */
import type { RequestIdVariables } from "hono/request-id";
import type { Colo } from "../src/config/colo.ts";

export type AppEnv = { Bindings: Env; Variables: RequestIdVariables & { colo: Colo } };
