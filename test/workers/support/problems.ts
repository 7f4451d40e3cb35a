/**
 * The one assertion of a whole RFC 9457 problem answer (src/http/problem.ts):
 * its status, its media type, and its body to the letter, the `type` URN
 * made from the code as the server makes it.
 *
 * @example
 * await expectProblem(res, { status: 404, code: "not_found", title: "Not Found", detail: "No route for GET /x" });
 * await expectProblemCode(res, 404, "not_found"); // where only the status and the code are the point
 */
import { expect } from "vitest";

export interface ExpectedProblem {
  status: number;
  code: string;
  title: string;
  detail: string;
  /** Extension members (`field`, `requestId`, `limit`, …). */
  [extension: string]: unknown;
}

export async function expectProblem(res: Response, problem: ExpectedProblem): Promise<void> {
  expect(res.status).toBe(problem.status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(await res.json()).toEqual({ type: `urn:palimpsest:problem:${problem.code}`, ...problem });
}

/** A problem answer's status, media type and code, where the rest of its body is not what a test is about. */
export async function expectProblemCode(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect((await res.json<{ code: string }>()).code).toBe(code);
}
