/** workers/middleware/form-body.ts: a form is counted and parsed once; multipart without its boundary is a 400 malformed_form, not a TypeError. */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { onError } from "../../../src/http/problem.ts";
import { formBody } from "../../../workers/middleware/form-body.ts";
import { expectProblemCode } from "../support/problems.ts";

const app = new Hono()
  .post("/", formBody("http.maxSmallBodyBytes"), async (c) => c.json(await c.req.parseBody()))
  .onError(onError);

const postForm = (body: string, contentType: string) =>
  app.request("/", { method: "POST", body, headers: { "content-type": contentType } });

describe("formBody", () => {
  it("parses a urlencoded form for the route", async () => {
    const res = await postForm("csrf=abc&title=Vellum", "application/x-www-form-urlencoded");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ csrf: "abc", title: "Vellum" });
  });

  it("refuses multipart/form-data without its boundary with 400 malformed_form", async () => {
    const res = await postForm("x", "multipart/form-data");
    await expectProblemCode(res, 400, "malformed_form");
  });
});
