/**
 * Bearer-token scopes, on Hono's bearer-auth. Who a token belongs to is
 * src/http/tokens.ts; this turns the answer into the request's principal or
 * a problem: 401 without a usable token (none, unknown, expired), 403 with a
 * token that carries none of the scopes the route accepts, 429 for a client
 * that has sent too many unknown or expired tokens lately
 * (src/http/auth-failures.ts), before its token is looked at.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { clientOf, recordFailure, refuseIfBlocked } from "../../src/http/auth-failures.ts";
import { ProblemError } from "../../src/http/problem.ts";
import { authenticateToken, type Principal, type Scope, type TokenCheck } from "../../src/http/tokens.ts";

export type { Principal, Scope } from "../../src/http/tokens.ts";

/** What an authenticated route sees. */
export type AuthVariables = { principal: Principal };

const CHECK = "tokenCheck";

/** Requires `Authorization: Bearer <token>` with a token carrying any one of `scopes`; sets `principal`. */
export function requireScope(
  ...scopes: [Scope, ...Scope[]]
): MiddlewareHandler<{ Bindings: Env; Variables: AuthVariables }> {
  const wanted = scopes.join(" or ");
  const unauthenticated = () =>
    new ProblemError({
      status: 401,
      code: "unauthenticated",
      detail: `send Authorization: Bearer <token> with a ${wanted}-scope token`,
      extensions: { scope: scopes },
    }).toResponse();
  return bearerAuth({
    verifyToken: async (token, c) => {
      const client = clientOf(c.req.raw);
      refuseIfBlocked(client);
      const check = await authenticateToken(c.env, token);
      c.set(CHECK as never, check as never);
      if (!check.ok) await recordFailure(c.env, client);
      if (!check.ok || !check.principal.scopes.some((s) => scopes.includes(s))) return false;
      c.set("principal" as never, check.principal as never);
      return true;
    },
    noAuthenticationHeader: { message: unauthenticated },
    invalidAuthenticationHeader: { message: unauthenticated },
    invalidToken: {
      message: (c: Context) => {
        const check = c.get(CHECK as never) as TokenCheck | undefined;
        if (check?.ok) {
          return new ProblemError({
            status: 403,
            code: "forbidden",
            detail: `the token of ${check.principal.name} does not carry the ${wanted} scope`,
            extensions: { scope: scopes },
          }).toResponse();
        }
        if (check?.reason === "expired") {
          return new ProblemError({
            status: 401,
            code: "token_expired",
            detail: "the token has expired; ask for a new one",
            extensions: { scope: scopes },
          }).toResponse();
        }
        return new ProblemError({
          status: 401,
          code: "invalid_token",
          detail: `the token is not one this archive issued`,
          extensions: { scope: scopes },
        }).toResponse();
      },
    },
  });
}

/**
 * Lets a request without `Authorization` through as the public's, with no
 * principal; one with credentials must pass {@link requireScope} (401 or
 * 403 otherwise, as every token route answers).
 */
export function optionalScope(
  ...scopes: [Scope, ...Scope[]]
): MiddlewareHandler<{ Bindings: Env; Variables: Partial<AuthVariables> }> {
  const required = requireScope(...scopes) as unknown as MiddlewareHandler<{
    Bindings: Env;
    Variables: Partial<AuthVariables>;
  }>;
  return (c, next) => (c.req.header("authorization") === undefined ? next() : required(c, next));
}
