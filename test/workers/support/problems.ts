/**
 * The one assertion of a whole RFC 9457 problem answer (src/http/problem.ts):
 * its status, its media type, and its body to the letter, the `type` URN
 * made from the code as the server makes it.
 *
 * @example
 * await expectProblem(res, { status: 404, code: "not_found", title: "Not Found", detail: "No route for GET /x" });
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
