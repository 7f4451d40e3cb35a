/** workers/middleware/json-body.ts: only JSON media types (415 otherwise), malformed JSON a 400, too deep a 400 naming http.maxJsonDepth; a good body reaches the route parsed, once. */
import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import { onError } from "../../../src/http/problem.ts";
import { LIMITS } from "../../../src/limits.ts";
import { jsonBody } from "../../../workers/middleware/json-body.ts";

const app = new Hono()
  .post("/", jsonBody("http.maxSmallBodyBytes"), async (c) => c.json(await c.req.json()))
  .onError(onError);
const post = (body: string, type = "application/json") =>
  app.request("/", { method: "POST", body, headers: { "content-type": type } });
const codeOf = async (res: Response) => (await res.json<{ code: string }>()).code;

describe("jsonBody", () => {
  it("passes a JSON body, with a +json type and parameters too", async () => {
    expect(await (await post('{"a":[1,2]}')).json()).toEqual({ a: [1, 2] });
    expect((await post("{}", "application/merge-patch+json; charset=UTF-8")).status).toBe(200);
  });

  it("refuses another media type with 415", async () => {
    const res = await post("{}", "text/plain; note=application/json");
    expect(res.status).toBe(415);
    expect(await codeOf(res)).toBe("unsupported_media_type");
  });

  it("refuses nesting past http.maxJsonDepth with 400 json_too_deep", async () => {
    const depth = LIMITS.http.maxJsonDepth + 1;
    const res = await post("[".repeat(depth) + "]".repeat(depth));
    expect(res.status).toBe(400);
    expect(await codeOf(res)).toBe("json_too_deep");
  });

  it("parses the body once: the route and a validator after it read the value the middleware parsed", async () => {
    const body = JSON.stringify({ revisions: [{ text: "x".repeat(1000) }] });
    const parse = vi.spyOn(JSON, "parse");
    try {
      const twice = new Hono().post("/", jsonBody("http.maxSmallBodyBytes"), async (c) => {
        const first = (await c.req.json()) as unknown;
        return c.json({ same: first === (await c.req.json()) });
      });
      const res = await twice.request("/", { method: "POST", body, headers: { "content-type": "application/json" } });
      const parsesOfBody = parse.mock.calls.filter(([text]) => text === body).length;
      expect(parsesOfBody).toBe(1);
      expect(await res.json()).toEqual({ same: true });
    } finally {
      parse.mockRestore();
    }
  });

  it("refuses malformed JSON with 400", async () => {
    const res = await post('{"a":');
    expect(res.status).toBe(400);
  });
});
