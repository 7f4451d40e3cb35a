/**
 * Failed authentications, limited per client wherever a credential is
 * checked (bearer tokens on the API, a bearer token sent on a public read
 * in production, workers/middleware/deployment-guard.ts, and the
 * dashboard's login form): past
 * AUTH_FAILURE_RATE's allowance a client gets 429 before its credential is
 * even looked at, so guessing costs the guesser time, not the archive.
 *
 * Only failures count: an importer posting batches with a good token is
 * never slowed by this. The counting is the one rate limiter's
 * (src/http/rate-limit.ts), which remembers a client it found over the
 * limit until the period ends; a client is what its `clientOf` says (an
 * IPv4 address, mapped or not, or an IPv6 /64).
 *
 * @example
 * await refuseIfBlocked(env, clientOf(c.req.raw));       // 429 if over
 * if (!check.ok) await recordFailure(env, clientOf(c.req.raw));
 */
import { LIMITS } from "../limits.ts";
import { ProblemError } from "./problem.ts";
import { RateLimiter } from "./rate-limit.ts";

// The one client-key function, for the routes that count failures.
export { clientOf } from "./rate-limit.ts";

/** The AUTH_FAILURE_RATE binding's period in wrangler.toml: a refused client may try again after it. */
export const AUTH_FAILURE_PERIOD_SECONDS = 60;

const failures = new RateLimiter({
  binding: (env) => env.AUTH_FAILURE_RATE,
  prefix: "auth-failure:",
  periodSeconds: AUTH_FAILURE_PERIOD_SECONDS,
  remember: LIMITS.http.authFailureClientsRemembered,
  refusal: (_client, retryAfterSeconds) =>
    new ProblemError({
      status: 429,
      code: "auth_rate_limited",
      detail: `Too many failed authentications from your address; try again in ${retryAfterSeconds} seconds.`,
      extensions: { retryAfterSeconds },
    }),
});

/** Throws 429 if this client has failed too often lately. */
export function refuseIfBlocked(client: string, now = Date.now()): void {
  failures.refuseIfBlocked(client, now);
}

/** Counts a failed authentication; throws 429 once the client is over its allowance. */
export async function recordFailure(env: Env, client: string, now = Date.now()): Promise<void> {
  await failures.charge(env, client, now);
}
