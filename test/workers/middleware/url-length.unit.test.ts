/** workers/middleware/url-length.ts: a URL past LIMITS.http.maxUrlLength is a 414 naming the limit; one at it reaches the route. */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { onError } from "../../../src/http/problem.ts";
import { LIMITS } from "../../../src/limits.ts";
import { urlLength } from "../../../workers/middleware/url-length.ts";

const app = new Hono()
  .use(urlLength)
  .get("/x", (c) => c.text("ok"))
  .onError(onError);
const urlOf = (length: number) => {
  const base = "http://localhost/x?q=";
  return base + "a".repeat(length - base.length);
};

describe("urlLength", () => {
  it("passes a URL of exactly the limit", async () => {
    const res = await app.request(urlOf(LIMITS.http.maxUrlLength));
    expect(res.status).toBe(200);
  });

  it("refuses one character more with 414 url_too_long, naming http.maxUrlLength", async () => {
    const res = await app.request(urlOf(LIMITS.http.maxUrlLength + 1));
    expect(res.status).toBe(414);
    const body = await res.json<{ code: string; limit: { name: string; value: number } }>();
    expect(body.code).toBe("url_too_long");
    expect(body.limit).toEqual({ name: "http.maxUrlLength", value: LIMITS.http.maxUrlLength });
  });
});
