/**
 * Anonymous exports, limited per client: past `export.anonymousPerMinute`
 * (the EXPORT_RATE binding) a client gets 429 with Retry-After before any
 * work is done for it. Every anonymous `GET /page/{title}/export` counts,
 * a tier hit or a 304 as much as one made at the origin: a client cannot
 * tell which it will get, and one walking a page's history gets far under
 * the limit anyway. A `backup`-scope token is never counted here; the
 * route checks that first. The counting is the one rate limiter's
 * (./rate-limit.ts), keyed by the one client key (`clientOf`); it remembers
 * a client over the limit in this isolate until its period ends.
 *
 * @example
 * await chargeAnonymousExport(c.env, c.req.raw); // throws the 429 once over
 */
import { LIMITS } from "../limits.ts";
import { clientOf } from "./auth-failures.ts";
import { ProblemError } from "./problem.ts";
import { RateLimiter } from "./rate-limit.ts";

/** The EXPORT_RATE binding's period in wrangler.toml. */
export const EXPORT_RATE_PERIOD_SECONDS = 60;

const anonymousExports = new RateLimiter({
  binding: (env) => env.EXPORT_RATE,
  prefix: "export:",
  periodSeconds: EXPORT_RATE_PERIOD_SECONDS,
  // The binding's window is fixed: a refused client may come back when it turns.
  retryAfterSeconds: (now) =>
    Math.max(1, EXPORT_RATE_PERIOD_SECONDS - (Math.floor(now / 1000) % EXPORT_RATE_PERIOD_SECONDS)),
  remember: LIMITS.http.authFailureClientsRemembered,
  refusal: (_client, retryAfterSeconds) =>
    new ProblemError({
      status: 429,
      code: "export_rate_limited",
      detail: `More than ${LIMITS.export.anonymousPerMinute} anonymous exports a minute from your address; try again in ${retryAfterSeconds} seconds, or export with a backup token.`,
      limit: "export.anonymousPerMinute",
      extensions: { retryAfterSeconds },
    }),
});

/** Counts one anonymous export for the request's client; throws the 429 once it is over its allowance. */
export async function chargeAnonymousExport(env: Env, request: Request, now = Date.now()): Promise<void> {
  const client = clientOf(request);
  anonymousExports.refuseIfBlocked(client, now);
  await anonymousExports.charge(env, client, now);
}
