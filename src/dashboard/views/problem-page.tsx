/** A problem as a page: what an HTML form request gets instead of problem JSON, with the same status. */
import type { FC } from "hono/jsx";
import type { ProblemError } from "../../http/problem.ts";

export const ProblemView: FC<{ problem: ProblemError; back?: string }> = ({ problem, back = "/dashboard" }) => (
  <section aria-labelledby="problem-heading">
    <h1 id="problem-heading">{problem.title}</h1>
    <div class="alert" role="alert">
      <p>{problem.detail ?? problem.title}</p>
      {typeof problem.extensions.requestId === "string" ? (
        <p>
          Request id: <code>{problem.extensions.requestId}</code>
        </p>
      ) : null}
    </div>
    <p>
      <a href={back}>Back to the dashboard</a>
    </p>
  </section>
);
