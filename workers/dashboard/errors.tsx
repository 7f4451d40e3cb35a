/**
 * The dashboard's error handler. Its JSON endpoints answer problem JSON
 * like the API; its pages answer the same problem as an accessible page
 * with the same status (and Retry-After when the problem gives one). Hono's
 * csrf middleware refusing a cross-site form is a 403 problem too.
 */
import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { onError, ProblemError } from "../../src/http/problem.ts";
import { ProblemView } from "../../src/dashboard/views/problem-page.tsx";
import type { DashboardEnv } from "./env.ts";
import { page } from "./render.tsx";

function asProblem(err: Error, requestId: string | undefined): ProblemError {
  if (err instanceof ProblemError) return err;
  if (err instanceof HTTPException && err.status === 403) {
    return new ProblemError({ status: 403, code: "cross_site_form", title: "Forbidden", detail: "This form was not sent from the dashboard's own pages, so nothing was done." });
  }
  if (err instanceof HTTPException && err.status >= 400 && err.status < 500) {
    return new ProblemError({ status: err.status as ProblemError["status"], code: `http_${err.status}`, title: err.message || "Request rejected" });
  }
  console.error("unhandled dashboard error", { requestId }, err);
  return new ProblemError({ status: 500, code: "internal", title: "Internal Server Error", detail: "Something went wrong on our side; quote the request id when reporting this.", extensions: requestId ? { requestId } : {} });
}

export const dashboardError: ErrorHandler<DashboardEnv> = (err, c) => {
  if (c.req.path.startsWith("/dashboard/api/")) return onError(err, c);
  const problem = asProblem(err, c.get("requestId"));
  const retryAfter = problem.extensions.retryAfterSeconds;
  if (typeof retryAfter === "number") c.header("retry-after", String(Math.ceil(retryAfter)));
  return page(c, problem.title, <ProblemView problem={problem} />, { status: problem.status as ContentfulStatusCode });
};
