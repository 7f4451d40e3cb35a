/**
 * Bearer-token scopes, on Hono's bearer-auth. Tokens are Worker secrets
 * (comma-separated lists per scope); comparison hashes both sides first so
 * it runs in constant time whatever the lengths, and checks every candidate
 * so timing does not reveal which one matched. Refusals are problems:
 * 401 without a usable token, 403 with a token outside the scope.
 */
import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { ProblemError } from "./problem.ts";

async function digest(value: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
}

export async function tokenMatches(presented: string, configured: string | undefined): Promise<boolean> {
  const candidates = (configured ?? "").split(",").map((t) => t.trim()).filter(Boolean);
  const got = await digest(presented);
  let match = false;
  for (const candidate of candidates) {
    if (crypto.subtle.timingSafeEqual(got, await digest(candidate))) match = true;
  }
  return match;
}

const SCOPES = {
  write: (env: Env) => env.WRITE_TOKENS,
} as const;

export type Scope = keyof typeof SCOPES;

/** Requires `Authorization: Bearer <token>` with a token of `scope`. */
export function requireScope(scope: Scope): MiddlewareHandler<{ Bindings: Env }> {
  const unauthenticated = () =>
    new ProblemError({ status: 401, code: "unauthenticated", title: "Unauthorized", detail: `send Authorization: Bearer <token> with a ${scope}-scope token`, extensions: { scope } }).toResponse();
  return bearerAuth({
    verifyToken: (token, c) => tokenMatches(token, SCOPES[scope](c.env)),
    noAuthenticationHeader: { message: unauthenticated },
    invalidAuthenticationHeader: { message: unauthenticated },
    invalidToken: {
      message: () => new ProblemError({ status: 403, code: "forbidden", title: "Forbidden", detail: `the token does not carry the ${scope} scope`, extensions: { scope } }).toResponse(),
    },
  });
}
