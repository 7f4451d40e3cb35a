/** workers/middleware/development-only.ts: development reaches the route; production answers the app's 404. */
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { developmentOnly } from "../../../workers/middleware/development-only.ts";
import { expectProblemCode } from "../support/problems.ts";

const app = new Hono<{ Bindings: Env }>().use("/dev/*", developmentOnly).get("/dev/probe", (c) => c.text("probe"));

describe("developmentOnly", () => {
  it("lets development reach the route", async () => {
    const res = await app.request("/dev/probe", {}, { ...env, ENVIRONMENT: "development" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("probe");
  });

  it("answers 404 not_found in production, as if the route were not there", async () => {
    const res = await app.request("/dev/probe", {}, { ...env, ENVIRONMENT: "production" });
    await expectProblemCode(res, 404, "not_found");
  });
});
