/** workers/middleware/problem-pages.tsx: a problem becomes a page with the same status and facts for a browser; an API client keeps the JSON; both vary on Accept. */
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { describe, expect, it } from "vitest";
import { onError, ProblemError } from "../../../src/http/problem.ts";
import { problemPages } from "../../../workers/middleware/problem-pages.tsx";

const app = new Hono()
  .use(requestId())
  .use(problemPages)
  .get("/busy", () => {
    throw new ProblemError({
      status: 429,
      code: "rate_limited",
      title: "Too Many Requests",
      detail: "try again in 7 s",
      extensions: { retryAfterSeconds: 7 },
    });
  })
  .onError(onError);

describe("problemPages", () => {
  it("shows a browser the problem as an HTML page, same status, Retry-After kept", async () => {
    const res = await app.request("/busy", { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    expect(res.status).toBe(429);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.headers.get("vary")).toMatch(/accept/i);
    const html = await res.text();
    expect(html).toContain("try again in 7 s");
    expect(html).toContain("rate_limited");
    expect(html).toContain(res.headers.get("x-request-id")!);
  });

  it("keeps problem JSON for an API client", async () => {
    const res = await app.request("/busy", { headers: { accept: "application/json" } });
    expect(res.status).toBe(429);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.headers.get("vary")).toMatch(/accept/i);
    expect((await res.json<{ code: string }>()).code).toBe("rate_limited");
  });
});
