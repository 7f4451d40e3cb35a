/**
 * workers/middleware/time-travel.ts, from its route params: a bad
 * Accept-Datetime on a page's URL is refused before any read, and paths the
 * hook does not own (a revid that is not a revision id, a non-canonical
 * title, a POST) reach the route untouched. The TimeGate's and the Memento
 * headers' reads are covered by test/workers/memento/.
 */
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { describe, expect, it } from "vitest";
import { onError } from "../../../src/http/problem.ts";
import type { AppEnv } from "../../../workers/app-env.ts";
import { timeTravel } from "../../../workers/middleware/time-travel.ts";
import { expectProblemCode } from "../support/problems.ts";

const app = new Hono<AppEnv>()
  .use(requestId())
  .use("/page/:title", timeTravel)
  .use("/page/:title/:revid", timeTravel)
  .all("/page/:title", (c) => c.text(`page ${c.req.param("title")}`))
  .all("/page/:title/:revid", (c) => c.text(`sub ${c.req.param("revid")}`))
  .onError(onError);

describe("timeTravel", () => {
  it("refuses an Accept-Datetime that is not an RFC 1123 date with 400 invalid_accept_datetime", async () => {
    const res = await app.request("/page/Vellum", { headers: { "accept-datetime": "yesterday" } }, env);
    await expectProblemCode(res, 400, "invalid_accept_datetime");
  });

  it("passes through what is not its own: a non-id revid, a non-canonical title, a POST", async () => {
    const history = await app.request("/page/Vellum/history", { headers: { "accept-datetime": "yesterday" } }, env);
    expect(await history.text()).toBe("sub history");
    const lower = await app.request("/page/vellum", { headers: { "accept-datetime": "yesterday" } }, env);
    expect(await lower.text()).toBe("page vellum");
    const post = await app.request(
      "/page/Vellum",
      { method: "POST", headers: { "accept-datetime": "yesterday" } },
      env,
    );
    expect(await post.text()).toBe("page Vellum");
  });
});
