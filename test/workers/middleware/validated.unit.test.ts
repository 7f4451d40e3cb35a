/** workers/middleware/validated.ts: the handler reads typed data; a failure is a problem naming the field, with the route's own code where it gives one. */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { onError } from "../../../src/http/problem.ts";
import { validated } from "../../../workers/middleware/validated.ts";

const app = new Hono()
  .get(
    "/page/:title/history",
    validated("query", z.object({ limit: z.coerce.number().int().max(50), older: z.string().optional() }), "history", {
      limit: { status: 400, code: "invalid_limit", limit: "history.maxPageSize" },
    }),
    (c) => c.json(c.req.valid("query")),
  )
  .post("/things", validated("json", z.object({ name: z.string() }), "thing"), (c) => c.json(c.req.valid("json")))
  .onError(onError);

type Problem = { status: number; code: string; detail: string; field: string; page?: string };

describe("validated", () => {
  it("hands the handler the parsed data", async () => {
    const res = await app.request("/page/Bip_0340/history?limit=20");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ limit: 20 });
  });

  it("answers a field with its own refusal by that status and code, naming the field and the page", async () => {
    const res = await app.request("/page/Bip_0340/history?limit=500");
    expect(res.status).toBe(400);
    const problem = await res.json<Problem>();
    expect(problem).toMatchObject({ code: "invalid_limit", field: "limit", page: "Bip_0340" });
    expect(problem.detail).toMatch(/^history: limit: /);
  });

  it("answers any other field 422 invalid_field, and names no page for a JSON body", async () => {
    const res = await app.request("/things", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: 7 }),
    });
    expect(res.status).toBe(422);
    const problem = await res.json<Problem>();
    expect(problem).toMatchObject({ code: "invalid_field", field: "name" });
    expect(problem.page).toBeUndefined();
  });
});
