/**
 * Logging in and out.
 *
 *   GET  /dashboard/login    the form (or straight on, when already signed in)
 *   POST /dashboard/login    token → session cookie, 303 to /dashboard; 401 with the reason; 429 past LOGIN_RATE
 *   POST /dashboard/logout   (CSRF token) clears the cookie, 303 to the login
 */
import { Hono } from "hono";
import { accessConfig } from "../../src/dashboard/access.ts";
import { endSession, startSession } from "../../src/dashboard/session.ts";
import { LoginView } from "../../src/dashboard/views/login.tsx";
import { limitBody } from "../../src/http/json-body.ts";
import { ProblemError } from "../../src/http/problem.ts";
import { authenticateToken } from "../../src/http/tokens.ts";
import type { DashboardEnv } from "./env.ts";
import { page } from "./render.tsx";
import { currentSession, requireSecret, requireSession } from "./session-middleware.ts";

/** The period of the LOGIN_RATE binding in wrangler.toml: a refused client may try again after it. */
const LOGIN_RATE_PERIOD_SECONDS = 60;

const REFUSALS = {
  unknown: "That token is not one this archive issued. Check it and try again.",
  expired: "That token has expired. Ask for a new one.",
} as const;

export const loginRoutes = new Hono<DashboardEnv>();

loginRoutes.get("/login", async (c) => {
  if (await currentSession(c, requireSecret(c.env))) return c.redirect("/dashboard", 303);
  return page(c, "Log in", <LoginView access={accessConfig(c.env) !== null} />);
});

loginRoutes.post("/login", limitBody("http.maxSmallBodyBytes"), async (c) => {
  const secret = requireSecret(c.env);
  // Per client address, before the token is even looked at: guessing tokens is what this slows down.
  const client = c.req.header("cf-connecting-ip") ?? "unknown";
  const { success } = await c.env.LOGIN_RATE.limit({ key: `dashboard-login:${client}` });
  if (!success) {
    throw new ProblemError({
      status: 429,
      code: "login_rate_limited",
      title: "Too Many Requests",
      detail: `Too many login attempts from your address; try again in ${LOGIN_RATE_PERIOD_SECONDS} seconds.`,
      extensions: { retryAfterSeconds: LOGIN_RATE_PERIOD_SECONDS },
    });
  }
  const form = await c.req.parseBody();
  const token = typeof form.token === "string" ? form.token.trim() : "";
  const check = token ? await authenticateToken(c.env, token) : ({ ok: false, reason: "unknown" } as const);
  if (!check.ok) {
    return page(c, "Log in", <LoginView error={token ? REFUSALS[check.reason] : "Enter your API token."} access={accessConfig(c.env) !== null} />, { status: 401 });
  }
  await startSession(c, secret, { ...check.principal, via: "session" });
  return c.redirect("/dashboard", 303);
});

loginRoutes.post("/logout", limitBody("http.maxSmallBodyBytes"), requireSession, (c) => {
  endSession(c);
  return c.redirect("/dashboard/login", 303);
});
