/**
 * The operator dashboard, mounted at /dashboard: server-rendered pages
 * (Hono JSX) that work without JavaScript, one small script for live purge
 * progress. Every response carries a CSP that allows only our own script
 * and the inline stylesheet, each under the response's nonce; every form POST passes Hono's
 * origin check (csrf) and carries the session's CSRF token.
 *
 * @example
 * app.route("/dashboard", dashboardRoutes);
 */
import { Hono } from "hono";
import { csrf } from "hono/csrf";
import { NONCE, secureHeaders } from "hono/secure-headers";
import { LIVE_JS } from "../../../src/dashboard/assets/live.ts";
import type { DashboardEnv } from "../../app-env.ts";
import { dashboardError } from "./errors.tsx";
import { loginRoutes } from "./login-routes.tsx";
import { operatorRoutes } from "./operator-routes.tsx";
import { purgeRoutes } from "./purge-routes.tsx";
import { takedownRoutes } from "./takedown-routes.tsx";

export const dashboardRoutes = new Hono<DashboardEnv>();

dashboardRoutes.use(
  secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      // By nonce, not 'self': 'self' would admit any archived javascript revision under /page/ as a script.
      scriptSrc: [NONCE],
      styleSrc: [NONCE],
      connectSrc: ["'self'"],
      imgSrc: ["'self'"],
      formAction: ["'self'"],
      baseUri: ["'none'"],
      frameAncestors: ["'none'"],
    },
    // Not no-referrer: under it browsers send `Origin: null` on form posts, which the origin check must refuse.
    referrerPolicy: "same-origin",
  }),
);
dashboardRoutes.use(csrf());
dashboardRoutes.onError(dashboardError);

dashboardRoutes.get("/live.js", (c) => {
  c.header("content-type", "text/javascript; charset=utf-8");
  c.header("cache-control", "public, max-age=300");
  return c.body(LIVE_JS);
});

dashboardRoutes.route("/", loginRoutes);
dashboardRoutes.route("/", purgeRoutes);
dashboardRoutes.route("/", takedownRoutes);
dashboardRoutes.route("/", operatorRoutes);
