/** Turns a PageStore's expected failure into the one error vocabulary. */
import type { StoreProblem } from "./types.ts";
import { ProblemError } from "../http/problem.ts";

const TITLES: Record<StoreProblem["status"], string> = {
  404: "Not Found",
  409: "Conflict",
  410: "Gone",
  413: "Content Too Large",
  422: "Unprocessable Content",
};

export function storeProblem(p: StoreProblem, page: string): ProblemError {
  return new ProblemError({
    status: p.status,
    code: p.code,
    title: TITLES[p.status],
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
