/**
 * What a production deployment must not do, checked on every request:
 *
 * - Build an absolute URL (Location, Link, TimeMaps, cursors) from the
 *   request's Host. Without PUBLIC_ORIGIN a forged `Host: evil.example`
 *   would be echoed into cacheable redirects, so production refuses to
 *   serve at all until PUBLIC_ORIGIN is set (503 `public_origin_unset`,
 *   saying what to set), and with it set answers only requests for that
 *   host (421 `misdirected_request`). /healthz answers either way, so a
 *   deploy can be probed before it is configured.
 * - Tell anonymous clients how it works inside: the debug headers (which
 *   tier answered, the colo, the origin's read cost, where the read's time
 *   went: Server-Timing) go only to
 *   development and to requests carrying a valid token.
 * - Let a public read be a free token oracle: whether the debug headers
 *   came back says whether a token is valid, so a token checked here counts
 *   its failures against the client as on every other route
 *   (src/http/auth-failures.ts), and a client past the allowance gets the
 *   same 429 before its token is looked at.
 *
 * Development (`ENVIRONMENT=development`, as `npm start` and the tests run)
 * takes the request's own origin and sends the debug headers to everyone.
 *
 * @example
 * app.use(deploymentGuard);
 */
import type { MiddlewareHandler } from "hono";
import { settingsOf } from "../../src/config/settings.ts";
import { ProblemError } from "../../src/http/problem.ts";
import { clientOf, recordFailure, refuseIfBlocked } from "../../src/http/auth-failures.ts";
import { authenticateToken } from "../../src/http/tokens.ts";

/** Headers that describe the archive's insides, for developers and operators only. */
export const DEBUG_HEADERS = ["x-palimpsest-tier", "x-palimpsest-colo", "x-read-cost", "server-timing"] as const;

/** Paths a misconfigured production deployment still answers. */
const ALWAYS = new Set(["/healthz"]);

/** The bearer token a request sends, if it sends one. */
const bearerToken = (request: Request): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];

/** Whether the request's bearer token is valid; a failure counts against the client (429 once over). */
async function isOperator(env: Env, request: Request, token: string): Promise<boolean> {
  const check = await authenticateToken(env, token);
  if (!check.ok) await recordFailure(env, clientOf(request));
  return check.ok;
}

export const deploymentGuard: MiddlewareHandler<{ Bindings: Env }> = async (c, next) => {
  const { development, publicOrigin } = settingsOf(c.env);
  if (development) return next();
  if (!ALWAYS.has(c.req.path)) {
    if (publicOrigin === null) {
      throw new ProblemError({
        status: 503,
        code: "public_origin_unset",
        title: "Archive not configured",
        detail:
          'PUBLIC_ORIGIN is not set, so this archive cannot build its own URLs safely. Set it in wrangler.toml\'s [vars] (e.g. PUBLIC_ORIGIN = "https://archive.example.org") and deploy again.',
      });
    }
    if (new URL(c.req.url).host !== new URL(publicOrigin).host) {
      throw new ProblemError({
        status: 421,
        code: "misdirected_request",
        title: "Misdirected Request",
        detail: `this archive answers only for ${publicOrigin}`,
      });
    }
  }
  const token = bearerToken(c.req.raw);
  // A client over the failed-authentication allowance is refused as every token route refuses it.
  if (token !== undefined) refuseIfBlocked(clientOf(c.req.raw));
  await next();
  if (!DEBUG_HEADERS.some((h) => c.res.headers.has(h))) return;
  if (token !== undefined && (await isOperator(c.env, c.req.raw, token))) return;
  try {
    for (const h of DEBUG_HEADERS) c.res.headers.delete(h);
  } catch {
    // Immutable headers (a response passed through as fetched): copy it.
    const copy = new Response(c.res.body, c.res);
    for (const h of DEBUG_HEADERS) copy.headers.delete(h);
    c.res = copy;
  }
};
