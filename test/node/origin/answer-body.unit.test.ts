/**
 * An answer's body is read one way (src/origin/answer-body.ts): a 200's JSON
 * as its kind's type, checked, with the origin's bytes kept as they were;
 * a body that is not what its kind says is an error, not a value cast to
 * the type; a problem's fields, or none when the body is not a problem.
 */
import { describe, expect, it } from "vitest";
import { answerJson, answerProblem } from "../../../src/origin/answer-body.ts";

const answer = (status: number, json: unknown) => ({
  status,
  body: new TextEncoder().encode(typeof json === "string" ? json : JSON.stringify(json)),
});

const revision = {
  id: 7,
  parentId: 6,
  timestamp: "2020-01-01T00:00:00Z",
  contributor: "A",
  comment: "c",
  model: "wikitext",
  format: "text/x-wiki",
  bytes: 3,
  sha1: "x",
  sha256: "y",
  suppressed: false,
  tags: [],
};

describe("an answer's body as a value", () => {
  it("reads a 200's JSON as its kind's type, member order and all", () => {
    const history = { page: "Main Page", total: 1, revisions: [revision], cursors: { older: null, newer: "a7" } };
    const read = answerJson("history", answer(200, history));
    expect(read).toEqual(history);
    // The route rebuilds the body from it: the origin's bytes, not a schema's reordering.
    expect(JSON.stringify(read)).toBe(JSON.stringify(history));
    const info = {
      title: "T",
      self: { id: 7, ts: 1 },
      suppressed: false,
      first: null,
      last: null,
      prev: null,
      next: null,
    };
    expect(answerJson("memento", answer(200, info)).self.id).toBe(7);
    expect(answerJson("mementos", answer(200, { title: "T", mementos: [[7, 1, 0]] })).mementos).toEqual([[7, 1, 0]]);
  });

  it("refuses a body that is not what its kind says, naming the field", () => {
    expect(() => answerJson("history", answer(200, { page: "P", total: 1, revisions: [] }))).toThrow(/cursors/);
    expect(() => answerJson("timeline", answer(200, { title: "T", total: "1" }))).toThrow(/not a timeline/);
    expect(() => answerJson("compare", answer(200, "<html>"))).toThrow(/not JSON/);
    expect(() => answerJson("memento", answer(404, { title: "Not Found" }))).toThrow(/only at 200/);
  });

  it("reads a problem's fields, and none from a body that is not a problem", () => {
    const problem = { type: "about:blank", title: "Gone", status: 410, code: "revision_suppressed", page: "P" };
    expect(answerProblem(answer(410, problem))).toEqual(problem);
    expect(answerProblem(answer(502, "upstream exploded"))).toEqual({});
    expect(answerProblem(answer(500, [1, 2]))).toEqual({});
    expect(answerProblem(answer(500, { title: 5 }))).toEqual({});
  });
});
