/** workers/middleware/require-session.ts: without a session a page redirects to the login (303) and a JSON endpoint or a form POST answers 401. */
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { onError } from "../../../src/http/problem.ts";
import type { DashboardEnv } from "../../../workers/app-env.ts";
import { requireSession } from "../../../workers/middleware/require-session.ts";
import { expectProblemCode } from "../support/problems.ts";

const app = new Hono<DashboardEnv>()
  .use("/dashboard/*", requireSession)
  .all("/dashboard/*", (c) => c.text(c.get("session")?.name ?? "none"))
  .onError(onError);

describe("requireSession", () => {
  it("redirects a page request without a session to /dashboard/login", async () => {
    const res = await app.request("/dashboard/purges", {}, env);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/login");
  });

  it("answers 401 unauthenticated to a JSON endpoint and to a form POST", async () => {
    for (const init of [
      {},
      { method: "POST", body: "csrf=x", headers: { "content-type": "application/x-www-form-urlencoded" } },
    ]) {
      const path = "method" in init ? "/dashboard/purges" : "/dashboard/api/purges/x";
      const res = await app.request(path, init, env);
      await expectProblemCode(res, 401, "unauthenticated");
    }
  });
});
