/**
 * An error as a page, the one view of a problem for a person: everything the
 * problem JSON says (status, title, detail, code, the limit, the request id),
 * readable, and a way back (the front page; the dashboard gives its own).
 * Shared by the public pages and the dashboard.
 */
import type { FC } from "hono/jsx";

export interface ProblemFacts {
  status: number;
  title: string;
  detail?: string;
  code?: string;
  limit?: { name: string; value: number };
  requestId?: string;
}

export const ProblemView: FC<{ problem: ProblemFacts; back?: { href: string; label: string } }> = ({
  problem,
  back,
}) => (
  <section aria-labelledby="problem-heading">
    <h1 id="problem-heading">{`${problem.status} ${problem.title}`}</h1>
    <div class="alert" role="alert">
      <p>{problem.detail ?? problem.title}</p>
    </div>
    <dl class="facts">
      <div>
        <dt>Status</dt>
        <dd>{String(problem.status)}</dd>
      </div>
      {problem.code ? (
        <div>
          <dt>Code</dt>
          <dd>
            <code>{problem.code}</code>
          </dd>
        </div>
      ) : null}
      {problem.limit ? (
        <div>
          <dt>Limit</dt>
          <dd>
            <code>{problem.limit.name}</code> = {String(problem.limit.value)}
          </dd>
        </div>
      ) : null}
      {problem.requestId ? (
        <div>
          <dt>Request id</dt>
          <dd>
            <code>{problem.requestId}</code> (quote it when reporting this)
          </dd>
        </div>
      ) : null}
    </dl>
    {back ? (
      <p>
        <a href={back.href}>{back.label}</a>
      </p>
    ) : (
      <p>
        <a href="/">Go to the front page</a> or search for a title above.
      </p>
    )}
  </section>
);
