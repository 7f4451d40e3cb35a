import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it, vi } from "vitest";
import { notFound, onError, ProblemError } from "../../../src/http/problem.ts";
import { expectProblem } from "../support/problems.ts";

function appThrowing(err: unknown): Hono {
  const app = new Hono();
  app.use(requestId());
  app.get("/boom", () => {
    throw err;
  });
  app.notFound(notFound);
  app.onError(onError);
  return app;
}

describe("problem responses", () => {
  it("render a ProblemError as RFC 9457 JSON with its extensions", async () => {
    const err = new ProblemError({
      status: 422,
      code: "bad_title",
      title: "Invalid page title",
      detail: "Titles may not contain '#'.",
      extensions: { field: "title" },
    });
    const res = await appThrowing(err).request("/boom");
    await expectProblem(res, {
      status: 422,
      code: "bad_title",
      title: "Invalid page title",
      detail: "Titles may not contain '#'.",
      field: "title",
    });
  });

  it("take the status's reason phrase as title when they name none, and keep one they name", async () => {
    const res = await appThrowing(
      new ProblemError({ status: 404, code: "no_such_page", detail: "no page Foo" }),
    ).request("/boom");
    await expectProblem(res, { status: 404, code: "no_such_page", title: "Not Found", detail: "no page Foo" });
    expect(new ProblemError({ status: 409, code: "c" }).title).toBe("Conflict");
    expect(new ProblemError({ status: 409, code: "c", title: "Revision conflict" }).title).toBe("Revision conflict");
  });

  it("turn an unknown error into a logged 500 that leaks nothing", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await appThrowing(new Error("db password is hunter2")).request("/boom");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("hunter2");
    // Only a pointer into the log: this request's id, in the body and the header.
    expect(JSON.parse(text)).toEqual({
      type: "urn:palimpsest:problem:internal",
      title: "Internal Server Error",
      status: 500,
      detail: "quote the request id when reporting this",
      code: "internal",
      requestId: res.headers.get("x-request-id"),
    });
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(log).toHaveBeenCalledOnce();
    log.mockRestore();
  });

  it("map Hono's own client errors to problems", async () => {
    const res = await appThrowing(new HTTPException(400, { message: "Malformed JSON in request body" })).request(
      "/boom",
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "http_400", title: "Malformed JSON in request body" });
  });
});
