/**
 * What the routes see. Every route: the Worker's bindings, the request id,
 * and (once resolved) the colo the request arrived at. Every dashboard
 * route: the bindings, the request id, the CSP nonce and, once signed in,
 * the session and its CSRF token.
 */
import type { RequestIdVariables } from "hono/request-id";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { SecureHeadersVariables } from "hono/secure-headers";
import type { ProblemFacts } from "../src/ui/problem.tsx";
import type { Colo } from "../src/config/colo.ts";
import type { Session } from "../src/dashboard/session.ts";

/**
 * An area whose pages show a problem in their own layout (the dashboard's
 * error handler sets it); workers/middleware/problem-pages.tsx then renders
 * every problem of the request as a page in it, whatever the Accept.
 */
export type ProblemFrame = (facts: ProblemFacts) => JSX.Element;

export type AppEnv = { Bindings: Env; Variables: RequestIdVariables & { colo: Colo; problemFrame?: ProblemFrame } };

export type DashboardEnv = {
  Bindings: Env;
  Variables: RequestIdVariables &
    SecureHeadersVariables & { session?: Session; csrf?: string; problemFrame?: ProblemFrame };
};
