/**
 * Who is signed in, for every dashboard route past the login page: the
 * signed session cookie, or else a valid Cloudflare Access assertion,
 * which starts a session. Without either, a page redirects to the login
 * and a JSON endpoint answers 401. Every POST must carry the session's
 * CSRF token in its form, checked before anything is done.
 */
import type { Context, MiddlewareHandler } from "hono";
import { accessPrincipal } from "../../src/dashboard/access.ts";
import {
  csrfMatches,
  csrfToken,
  readSession,
  sessionSecret,
  startSession,
  type Session,
} from "../../src/dashboard/session.ts";
import { ProblemError } from "../../src/http/problem.ts";
import type { DashboardEnv } from "../app-env.ts";

/** The session secret, or 503 saying how to set one: unset and weak secrets alike (src/dashboard/session.ts). */
export function requireSecret(env: Env): string {
  const check = sessionSecret(env);
  if (check.ok) return check.secret;
  throw new ProblemError({
    status: 503,
    code: check.reason === "unset" ? "session_secret_unset" : "session_secret_weak",
    title: "Dashboard not configured",
    detail: check.detail,
  });
}

/**
 * The signed-in session, starting one from a Cloudflare Access assertion if
 * there is none. A session from a token lasts only while that very token is
 * configured with a scope: rotating, removing or cutting it ends or narrows
 * its sessions at once (src/dashboard/session.ts).
 */
export async function currentSession(c: Context<DashboardEnv>, secret: string): Promise<Session | null> {
  const session = await readSession(c, secret);
  if (session) return session;
  const who = await accessPrincipal(c.env, c.req.raw);
  return who ? startSession(c, secret, who, who.name) : null;
}

export const requireSession: MiddlewareHandler<DashboardEnv> = async (c, next) => {
  const secret = requireSecret(c.env);
  const session = await currentSession(c, secret);
  if (!session) {
    if (c.req.path.startsWith("/dashboard/api/")) {
      throw new ProblemError({
        status: 401,
        code: "unauthenticated",
        detail: "log in at /dashboard/login first",
      });
    }
    if (c.req.method === "GET" || c.req.method === "HEAD") return c.redirect("/dashboard/login", 303);
    throw new ProblemError({
      status: 401,
      code: "unauthenticated",
      detail: "Your session has ended; log in again, then resend the form.",
    });
  }
  c.set("session", session);
  c.set("csrf", await csrfToken(secret, session.sid));
  if (c.req.method === "POST") {
    const form = await c.req.parseBody();
    if (!(await csrfMatches(secret, session.sid, form.csrf))) {
      throw new ProblemError({
        status: 403,
        code: "csrf_token_invalid",
        detail:
          "This form's CSRF token is missing or not this session's, so nothing was done. Reload the page and send it again.",
      });
    }
  }
  await next();
};
