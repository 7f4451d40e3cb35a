/**
 * Bearer-token checks. Tokens are Worker secrets (comma-separated lists per
 * scope); comparison hashes both sides first so it runs in constant time
 * whatever the lengths.
 */
import type { MiddlewareHandler } from "hono";
import { ProblemError } from "./problem.ts";

async function digest(value: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
}

export async function tokenMatches(presented: string, configured: string | undefined): Promise<boolean> {
  const candidates = (configured ?? "").split(",").map((t) => t.trim()).filter(Boolean);
  const got = await digest(presented);
  let match = false;
  for (const candidate of candidates) {
    // Check every candidate, so timing does not reveal which one matched.
    if (crypto.subtle.timingSafeEqual(got, await digest(candidate))) match = true;
  }
  return match;
}

/** Requires `Authorization: Bearer <token>` with a token from the `write` scope (the WRITE_TOKENS secret). */
export function requireWriteScope(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) {
      throw new ProblemError({ status: 401, code: "unauthenticated", title: "Unauthorized", detail: "send Authorization: Bearer <token> with a write-scope token", extensions: { scope: "write" } });
    }
    if (!(await tokenMatches(m[1]!, c.env.WRITE_TOKENS))) {
      throw new ProblemError({ status: 403, code: "forbidden", title: "Forbidden", detail: "the token does not carry the write scope", extensions: { scope: "write" } });
    }
    await next();
  };
}
