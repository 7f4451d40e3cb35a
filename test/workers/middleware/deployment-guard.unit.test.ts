/** workers/middleware/deployment-guard.ts: production refuses without PUBLIC_ORIGIN and for another host, and strips debug headers from anonymous answers. */
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { onError } from "../../../src/http/problem.ts";
import { deploymentGuard } from "../../../workers/middleware/deployment-guard.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import { expectProblemCode } from "../support/problems.ts";

const app = new Hono<{ Bindings: Env }>()
  .use(deploymentGuard)
  .get("/page/X", (c) => c.text("page", 200, { "x-palimpsest-tier": "lower" }))
  .get("/healthz", (c) => c.text("ok"))
  .onError(onError);
const production = (publicOrigin: string) =>
  ({ ...env, ENVIRONMENT: "production", PUBLIC_ORIGIN: publicOrigin }) as unknown as Env;

describe("deploymentGuard", () => {
  it("answers 503 public_origin_unset without PUBLIC_ORIGIN, except /healthz", async () => {
    const res = await app.request("http://archive.example/page/X", {}, production(""));
    await expectProblemCode(res, 503, "public_origin_unset");
    expect((await app.request("http://archive.example/healthz", {}, production(""))).status).toBe(200);
  });

  it("answers 421 for another host than PUBLIC_ORIGIN's", async () => {
    const res = await app.request("http://evil.example/page/X", {}, production("https://archive.example"));
    expect(res.status).toBe(421);
  });

  it("sends debug headers only with a valid token in production, and always in development", async () => {
    const anonymous = await app.request("http://archive.example/page/X", {}, production("https://archive.example"));
    expect(anonymous.headers.has("x-palimpsest-tier")).toBe(false);
    const operator = await app.request(
      "http://archive.example/page/X",
      { headers: bearer(TOKENS.operator) },
      production("https://archive.example"),
    );
    expect(operator.headers.get("x-palimpsest-tier")).toBe("lower");
    const development = await app.request("http://localhost/page/X", {}, { ...env, ENVIRONMENT: "development" });
    expect(development.headers.get("x-palimpsest-tier")).toBe("lower");
  });
});
