/** workers/middleware/body-limit.ts: a body over its LIMITS entry is a 413 naming the limit, counted even when chunked; one at it reaches the route. */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { onError } from "../../../src/http/problem.ts";
import { LIMITS } from "../../../src/limits.ts";
import { limitBody } from "../../../workers/middleware/body-limit.ts";

const app = new Hono()
  .post("/", limitBody("http.maxSmallBodyBytes"), async (c) => c.text(String((await c.req.arrayBuffer()).byteLength)))
  .onError(onError);
const max = LIMITS.http.maxSmallBodyBytes;

function chunked(bytes: number): ReadableStream<Uint8Array> {
  let left = bytes;
  return new ReadableStream({
    pull(controller) {
      const n = Math.min(left, 4096);
      controller.enqueue(new Uint8Array(n));
      left -= n;
      if (left === 0) controller.close();
    },
  });
}

describe("limitBody", () => {
  it("passes a body of exactly the limit", async () => {
    const res = await app.request("/", { method: "POST", body: new Uint8Array(max) });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(String(max));
  });

  it("refuses one byte more with 413 request_too_large, naming http.maxSmallBodyBytes, chunked too", async () => {
    for (const body of [new Uint8Array(max + 1), chunked(max + 1)]) {
      const res = await app.request("/", {
        method: "POST",
        body,
        ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
      });
      expect(res.status).toBe(413);
      const problem = await res.json<{ code: string; limit: { name: string } }>();
      expect(problem.code).toBe("request_too_large");
      expect(problem.limit.name).toBe("http.maxSmallBodyBytes");
    }
  });
});
