/**
 * Purges from the dashboard (signed in).
 *
 *   GET  /dashboard                    the purge form and the latest purges
 *   POST /dashboard/purges             the form → ingestPurge → 303 to the purge's page; a refusal re-renders the form
 *   GET  /dashboard/purges             the audit log, newest first (?before= cursor)
 *   GET  /dashboard/purges/{id}        each tier acknowledging, live
 *   GET  /dashboard/api/purges/{id}    the same rows as JSON, for the live script
 */
import { Hono, type Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { purgeDisplay } from "../../../src/dashboard/purge-display.ts";
import { purgeRequest, type PurgeFormValues } from "../../../src/dashboard/purge-form.ts";
import type { Session } from "../../../src/dashboard/session.ts";
import { EMPTY_PURGE, PurgeForm, type PurgeRefusal } from "../../../src/dashboard/views/purge-form.tsx";
import { PurgeList, PurgeTable } from "../../../src/dashboard/views/purge-list.tsx";
import { PurgePage } from "../../../src/dashboard/views/purge-page.tsx";
import { formBody } from "../../middleware/form-body.ts";
import { ProblemError } from "../../../src/http/problem.ts";
import type { Principal } from "../../../src/http/tokens.ts";
import { listAudit } from "../../../src/purge/audit.ts";
import { ingestPurge } from "../../../src/purge/ingest.ts";
import { auditForbidden, purgeViewFor } from "../../../src/purge/status.ts";
import { coloOf } from "../../../src/config/colo.ts";
import type { DashboardEnv } from "../../app-env.ts";
import { page } from "./render.tsx";
import { requireSession } from "../../middleware/require-session.ts";

/** How often a pending purge's page reloads itself when scripts are off. */
const REFRESH_SECONDS = 2;
const RECENT_PURGES = 10;

const principalOf = (s: Session): Principal => ({
  name: s.name,
  scopes: s.scopes,
  via: s.via === "access" ? "access" : "session",
  expiresAt: s.expiresAt,
});
const canPurge = (s: Session) => s.scopes.includes("purge");

async function home(
  c: Context<DashboardEnv>,
  values: PurgeFormValues,
  refusal: PurgeRefusal | null,
  status: ContentfulStatusCode = 200,
) {
  const session = c.get("session")!;
  // The audit log is the purge scope's (src/purge/status.ts, mayView).
  const { entries } = canPurge(session) ? await listAudit(c.env, { limit: RECENT_PURGES }) : { entries: null };
  const form = canPurge(session) ? (
    <PurgeForm csrf={c.get("csrf")!} values={values} refusal={refusal} />
  ) : (
    <>
      <h1>Purge</h1>
      <p>Your token does not carry the purge scope, so you can look but not purge.</p>
    </>
  );
  return page(
    c,
    "Purge",
    <>
      {form}
      {entries ? (
        <>
          <h2>Latest purges</h2>
          <PurgeTable entries={entries} caption={`The ${RECENT_PURGES} latest purges`} />
          <p>
            <a href="/dashboard/purges">All purges and the audit log</a>
          </p>
        </>
      ) : null}
    </>,
    { status, current: "/dashboard" },
  );
}

type ItemProblem = { index?: number; item: string; reason: string };

/**
 * A refusal from ingest, its per-item errors (or, when every item was dropped, the drops) pointed at the lines the
 * operator typed.
 */
function refusalOf(problem: ProblemError, request: { lines: number[]; body: Record<string, unknown> }): PurgeRefusal {
  const listed = problem.extensions.errors ?? problem.extensions.dropped;
  const items = Object.values(request.body).find(Array.isArray) as unknown[] | undefined;
  const lineOf = (e: ItemProblem) => request.lines[e.index ?? items?.indexOf(e.item) ?? -1] ?? null;
  return {
    message: problem.detail ?? problem.title,
    items: Array.isArray(listed)
      ? (listed as ItemProblem[]).map((e) => ({ line: lineOf(e), item: e.item, reason: e.reason }))
      : [],
  };
}

export const purgeRoutes = new Hono<DashboardEnv>();
// Counted and parsed before the session check reads the form: a signed-in browser may still send too
// much, or a form no parser can read (400, not a 500). Only /purges takes a form; the rest, a small one.
purgeRoutes.use("/", formBody("http.maxSmallBodyBytes"), requireSession);
purgeRoutes.use("/purges", formBody("purge.maxRequestBytes"), requireSession);
purgeRoutes.use("/purges/*", formBody("http.maxSmallBodyBytes"), requireSession);
purgeRoutes.use("/api/purges/*", formBody("http.maxSmallBodyBytes"), requireSession);

purgeRoutes.get("/", (c) => home(c, EMPTY_PURGE, null));

purgeRoutes.post("/purges", async (c) => {
  const session = c.get("session")!;
  if (!canPurge(session)) {
    throw new ProblemError({
      status: 403,
      code: "forbidden",
      detail: `${session.name} does not carry the purge scope.`,
    });
  }
  const request = purgeRequest(await c.req.parseBody());
  if (!request.ok) return home(c, request.values, { message: request.message, items: [] }, 422);
  try {
    const receipt = await ingestPurge(c.env, coloOf(c.req.raw, c.env), principalOf(session), request.body, c.req.url);
    return c.redirect(`/dashboard/purges/${encodeURIComponent(receipt.id)}`, 303);
  } catch (err) {
    if (!(err instanceof ProblemError) || err.status >= 500) throw err;
    const retryAfter = err.extensions.retryAfterSeconds;
    if (typeof retryAfter === "number") c.header("retry-after", String(Math.ceil(retryAfter)));
    return home(c, request.values, refusalOf(err, request), err.status);
  }
});

purgeRoutes.get("/purges", async (c) => {
  const session = c.get("session")!;
  if (!canPurge(session)) throw auditForbidden(session.name);
  const before = c.req.query("before");
  const { entries, next } = await listAudit(c.env, before ? { before } : {});
  return page(c, "Purges and audit log", <PurgeList entries={entries} next={next} first={!before} />, {
    current: "/dashboard/purges",
  });
});

purgeRoutes.get("/purges/:id", async (c) => {
  const purge = purgeDisplay(await purgeViewFor(c.env, c.req.param("id"), c.get("session")!));
  const pending = purge.state !== "complete";
  return page(c, `Purge ${purge.id}`, <PurgePage purge={purge} />, {
    refreshSeconds: pending ? REFRESH_SECONDS : undefined,
    live: pending,
  });
});

purgeRoutes.get("/api/purges/:id", async (c) => {
  c.header("cache-control", "no-store");
  return c.json(purgeDisplay(await purgeViewFor(c.env, c.req.param("id"), c.get("session")!)));
});
