/** What every dashboard route sees: the bindings, the request id, the CSP nonce and, once signed in, the session and its CSRF token. */
import type { RequestIdVariables } from "hono/request-id";
import type { SecureHeadersVariables } from "hono/secure-headers";
import type { Session } from "../../src/dashboard/session.ts";

export type DashboardEnv = {
  Bindings: Env;
  Variables: RequestIdVariables & SecureHeadersVariables & { session?: Session; csrf?: string };
};
