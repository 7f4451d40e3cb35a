/** workers/middleware/with-colo.ts: the development header picks the colo and its region; an unknown one is a 400. */
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { Colo } from "../../../src/config/colo.ts";
import { onError } from "../../../src/http/problem.ts";
import { withColo } from "../../../workers/middleware/with-colo.ts";
import { expectProblemCode } from "../support/problems.ts";

const app = new Hono<{ Bindings: Env; Variables: { colo: Colo } }>()
  .use(withColo)
  .get("/", (c) => c.json(c.get("colo")))
  .onError(onError);

describe("withColo", () => {
  it("sets the colo the x-palimpsest-colo header names, with its region", async () => {
    const res = await app.request("/", { headers: { "x-palimpsest-colo": "syd" } }, env);
    expect(res.status).toBe(200);
    const colo = await res.json<Colo>();
    expect(colo.colo).toBe("SYD");
    expect(typeof colo.region).toBe("string");
  });

  it("refuses a colo the topology does not know with 400 unknown_colo", async () => {
    const res = await app.request("/", { headers: { "x-palimpsest-colo": "NOWHERE" } }, env);
    await expectProblemCode(res, 400, "unknown_colo");
  });
});
