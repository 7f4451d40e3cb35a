/** Turns a PageStore's expected failure into the one error vocabulary. */
import type { StoreProblem } from "./types.ts";
import { ProblemError } from "../http/problem.ts";

export function storeProblem(p: StoreProblem, page: string): ProblemError {
  return new ProblemError({
    status: p.status,
    code: p.code,
    detail: p.detail,
    limit: p.status === 413 ? "page.maxRevisionBytes" : undefined,
    extensions: {
      page,
      ...(p.revisionId === undefined ? {} : { revision: p.revisionId }),
      ...(p.latestId === undefined ? {} : { latest: p.latestId }),
      ...(p.differences === undefined ? {} : { differences: p.differences }),
    },
  });
}
