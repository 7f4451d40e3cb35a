/**
 * The dashboard's error handler. Its JSON endpoints answer problem JSON
 * like the API; its pages answer the same problem, which the one HTML error
 * path (workers/middleware/problem-pages.tsx) shows as a page with the same
 * status (and Retry-After when the problem gives one), in the dashboard's
 * layout with its nav, whatever the Accept. Hono's csrf middleware refusing
 * a cross-site form is a 403 problem too.
 */
import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { onError, ProblemError } from "../../../src/http/problem.ts";
import { Layout } from "../../../src/dashboard/views/layout.tsx";
import { ProblemView } from "../../../src/ui/problem.tsx";
import type { DashboardEnv } from "../../app-env.ts";
import { chromeOf } from "./render.tsx";

function asProblem(err: Error, requestId: string | undefined): ProblemError {
  if (err instanceof ProblemError) return err;
  if (err instanceof HTTPException && err.status === 403) {
    return new ProblemError({
      status: 403,
      code: "cross_site_form",
      detail: "This form was not sent from the dashboard's own pages, so nothing was done.",
    });
  }
  if (err instanceof HTTPException && err.status >= 400 && err.status < 500) {
    return new ProblemError({
      status: err.status as ProblemError["status"],
      code: `http_${err.status}`,
      title: err.message || "Request rejected",
    });
  }
  console.error("unhandled dashboard error", { requestId }, err);
  return new ProblemError({
    status: 500,
    code: "internal",
    detail: "Something went wrong on our side; quote the request id when reporting this.",
    extensions: requestId ? { requestId } : {},
  });
}

export const dashboardError: ErrorHandler<DashboardEnv> = (err, c) => {
  if (c.req.path.startsWith("/dashboard/api/")) return onError(err, c);
  const chrome = chromeOf(c);
  c.set("problemFrame", (facts) => (
    <Layout title={facts.title} chrome={chrome}>
      <ProblemView problem={facts} back={{ href: "/dashboard", label: "Back to the dashboard" }} />
    </Layout>
  ));
  return onError(asProblem(err, c.get("requestId")), c);
};
