/**
 * Takedowns from the dashboard (signed in). Taking down needs the write
 * scope, as the write API does; reading the takedown log, the purge scope,
 * as GET /api/takedowns does. Each change goes through
 * src/writes/page-writes.ts, which records it in the log with the login's
 * name and the reason the form requires.
 *
 *   GET  /dashboard/takedowns[?page=&before=]      the takedown log, newest first, and the title search
 *   GET  /dashboard/pages?title=…                  the search: 303 to the page's view
 *   GET  /dashboard/pages/{title}[?older=]         the page's revisions, its deletion form, its takedowns
 *   POST /dashboard/pages/{title}/revisions/{id}   hide or show the revision's content, comment, contributor
 *   POST /dashboard/pages/{title}/deletion         delete the page (410 to the public) or restore it
 *
 * A form refused (no reason, nothing to change) is shown again with the problem, 422, and nothing
 * changes; a change done is a 303 back to the page's view, which says what was done.
 */
import { Hono, type Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { coloOf } from "../../../src/config/colo.ts";
import { pageRevisions, olderCursor } from "../../../src/dashboard/page-revisions.ts";
import type { Session } from "../../../src/dashboard/session.ts";
import { deletionForm, revisionForm } from "../../../src/dashboard/takedown-form.ts";
import {
  PageTakedownsView,
  pageViewHref,
  TakedownsView,
  type TakedownRefusal,
} from "../../../src/dashboard/views/takedowns.tsx";
import { ProblemError } from "../../../src/http/problem.ts";
import { isSafeIdDigits } from "../../../src/http/queries.ts";
import { requirePage } from "../../../src/page/directory.ts";
import { pageRef, type PageRef } from "../../../src/page/page-ref.ts";
import { listTakedowns } from "../../../src/purge/takedown-log.ts";
import { setPageDeleted, setRevisionHidden } from "../../../src/writes/page-writes.ts";
import type { DashboardEnv } from "../../app-env.ts";
import { formBody } from "../../middleware/form-body.ts";
import { requireSession } from "../../middleware/require-session.ts";
import { page } from "./render.tsx";

/** Revisions per page of the view; each row carries its own form. */
const REVISIONS_SHOWN = 50;
/** The page's latest takedowns on its view; the rest are a link away. */
const LOG_SHOWN = 10;

const canTakeDown = (s: Session) => s.scopes.includes("write");
const canReadLog = (s: Session) => s.scopes.includes("purge");

function forbidden(session: Session): ProblemError {
  return new ProblemError({
    status: 403,
    code: "forbidden",
    detail: `${session.name} does not carry the write scope, which takedowns need; nothing was changed.`,
    extensions: { scope: ["write"] },
  });
}

/** The page named in the path, if the archive ever held it (a page deleted as MediaWiki deletes still is). */
async function existingPage(c: Context<DashboardEnv>): Promise<PageRef> {
  const ref = pageRef(c.req.param("title") ?? "");
  await requirePage(c.env, ref);
  return ref;
}

/** What a redirect after a change says on the page's view. */
function doneMessage(done: string | undefined): string | null {
  if (done === "deleted") return "The page is deleted; the takedown is recorded below.";
  if (done === "restored") return "The page is restored; the takedown is recorded below.";
  const m = /^revision-(\d{1,16})$/.exec(done ?? "");
  return m ? `Revision ${m[1]}'s visibility is changed; the takedown is recorded below.` : null;
}

async function pageView(
  c: Context<DashboardEnv>,
  ref: PageRef,
  refusal: TakedownRefusal | null,
  status: ContentfulStatusCode = 200,
) {
  const session = c.get("session")!;
  const older = c.req.query("older");
  const [revisions, log] = await Promise.all([
    pageRevisions(c.env, ref, olderCursor(older), REVISIONS_SHOWN),
    canReadLog(session) ? listTakedowns(c.env, { page: ref.title, limit: LOG_SHOWN }) : null,
  ]);
  return page(
    c,
    `Page ${revisions.title}`,
    <PageTakedownsView
      page={revisions}
      olderFrom={older ?? null}
      log={log?.entries ?? null}
      csrf={canTakeDown(session) ? c.get("csrf")! : null}
      refusal={refusal}
      done={refusal ? null : doneMessage(c.req.query("done"))}
    />,
    { status, current: "/dashboard/takedowns" },
  );
}

export const takedownRoutes = new Hono<DashboardEnv>();
// Counted and parsed before the session check reads the form (workers/middleware/form-body.ts).
takedownRoutes.use("/takedowns", formBody("http.maxSmallBodyBytes"), requireSession);
takedownRoutes.use("/pages", formBody("http.maxSmallBodyBytes"), requireSession);
takedownRoutes.use("/pages/*", formBody("http.maxSmallBodyBytes"), requireSession);

takedownRoutes.get("/takedowns", async (c) => {
  const session = c.get("session")!;
  const before = c.req.query("before") || undefined;
  const raw = c.req.query("page");
  const title = raw ? pageRef(raw).title : null;
  const found = canReadLog(session) ? await listTakedowns(c.env, { page: title ?? undefined, before }) : null;
  return page(
    c,
    "Takedowns",
    <TakedownsView entries={found?.entries ?? null} next={found?.next ?? null} first={!before} page={title} />,
    { current: "/dashboard/takedowns" },
  );
});

takedownRoutes.get("/pages", (c) => {
  const title = (c.req.query("title") ?? "").trim();
  if (title === "")
    throw new ProblemError({
      status: 400,
      code: "title_missing",
      detail: "Enter the title of a page to open.",
    });
  return c.redirect(pageViewHref(pageRef(title).title), 303);
});

takedownRoutes.get("/pages/:title", async (c) => pageView(c, await existingPage(c), null));

takedownRoutes.post("/pages/:title/revisions/:id", async (c) => {
  const session = c.get("session")!;
  if (!canTakeDown(session)) throw forbidden(session);
  const digits = c.req.param("id");
  if (!/^\d{1,16}$/.test(digits) || !isSafeIdDigits(digits.replace(/^0+/, "")))
    throw new ProblemError({
      status: 400,
      code: "invalid_revision_id",
      detail: "The revision id is not a whole number the archive could hold.",
    });
  const id = Number(digits);
  const ref = await existingPage(c);
  const form = revisionForm(await c.req.parseBody());
  if (!form.ok)
    return pageView(c, ref, { form: "revision", revision: id, message: form.message, values: form.values }, 422);
  await setRevisionHidden(c.env, coloOf(c.req.raw, c.env), ref, id, form.change, {
    by: session.name,
    reason: form.reason,
  });
  return c.redirect(`${pageViewHref(ref.title)}?done=revision-${id}`, 303);
});

takedownRoutes.post("/pages/:title/deletion", async (c) => {
  const session = c.get("session")!;
  if (!canTakeDown(session)) throw forbidden(session);
  const ref = await existingPage(c);
  const form = deletionForm(await c.req.parseBody());
  if (!form.ok) return pageView(c, ref, { form: "deletion", message: form.message, values: form.values }, 422);
  await setPageDeleted(c.env, coloOf(c.req.raw, c.env), ref, form.deleted, { by: session.name, reason: form.reason });
  return c.redirect(`${pageViewHref(ref.title)}?done=${form.deleted ? "deleted" : "restored"}`, 303);
});
