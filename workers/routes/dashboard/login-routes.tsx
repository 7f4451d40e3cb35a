/**
 * Logging in and out.
 *
 *   GET  /dashboard/login    the form (or straight on, when already signed in)
 *   POST /dashboard/login    token → session cookie, 303 to /dashboard; 401 with the reason; 429 past AUTH_FAILURE_RATE
 *   POST /dashboard/logout   (CSRF token) ends the session on the server and clears the cookie, 303 to the login
 */
import { Hono } from "hono";
import { accessConfig } from "../../../src/dashboard/access.ts";
import { endSession, startSession } from "../../../src/dashboard/session.ts";
import { clientOf, recordFailure, refuseIfBlocked } from "../../../src/http/auth-failures.ts";
import { LoginView } from "../../../src/dashboard/views/login.tsx";
import { formBody } from "../../middleware/form-body.ts";
import { authenticateToken } from "../../../src/http/tokens.ts";
import type { DashboardEnv } from "../../app-env.ts";
import { page } from "./render.tsx";
import { currentSession, requireSecret, requireSession } from "../../middleware/require-session.ts";

const REFUSALS = {
  unknown: "That token is not one this archive issued. Check it and try again.",
  expired: "That token has expired. Ask for a new one.",
} as const;

export const loginRoutes = new Hono<DashboardEnv>();

loginRoutes.get("/login", async (c) => {
  if (await currentSession(c, requireSecret(c.env))) return c.redirect("/dashboard", 303);
  return page(c, "Log in", <LoginView access={accessConfig(c.env) !== null} />);
});

loginRoutes.post("/login", formBody("http.maxSmallBodyBytes"), async (c) => {
  const secret = requireSecret(c.env);
  // Per client address, before the token is even looked at: guessing tokens is what this slows down.
  const client = clientOf(c.req.raw);
  refuseIfBlocked(client);
  const form = await c.req.parseBody();
  const token = typeof form.token === "string" ? form.token.trim() : "";
  if (!token)
    return page(c, "Log in", <LoginView error="Enter your API token." access={accessConfig(c.env) !== null} />, {
      status: 401,
    });
  const check = await authenticateToken(c.env, token);
  if (!check.ok) {
    await recordFailure(c.env, client);
    return page(c, "Log in", <LoginView error={REFUSALS[check.reason]} access={accessConfig(c.env) !== null} />, {
      status: 401,
    });
  }
  await startSession(c, secret, { ...check.principal, via: "session" }, check.credential);
  return c.redirect("/dashboard", 303);
});

loginRoutes.post("/logout", formBody("http.maxSmallBodyBytes"), requireSession, async (c) => {
  await endSession(c, requireSecret(c.env));
  return c.redirect("/dashboard/login", 303);
});
