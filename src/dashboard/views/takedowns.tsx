/**
 * Takedowns on the dashboard: the takedown log (who, when, what, why),
 * the title search that opens a page's view, and that view: the page's
 * revisions newest first, each with a form to hide or show its content,
 * comment and contributor, a form to delete or restore the page, and its
 * entries in the log. Every form posts with the session's CSRF token and
 * needs a reason; after a refusal the form comes back as sent, the problem
 * announced (role=alert) and tied to its reason field. Titles, names and
 * reasons sit in <bdi>, escaped as text. Pure functions of their data.
 */
import type { FC } from "hono/jsx";
import { titleSegment } from "../../page/page-ref.ts";
import {
  TAKEDOWN_FIELDS,
  type TakedownAction,
  type TakedownEntry,
  type TakedownField,
} from "../../purge/takedown-log.ts";
import { formatTime } from "../../ui/format.ts";
import type { OperatorRevision, PageRevisions } from "../page-revisions.ts";
import type { DeletionFormValues, RevisionFormValues } from "../takedown-form.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { CsrfField } from "./layout.tsx";

const ERRORS_ID = "takedown-errors";

const keyOf = (title: string) => title.replaceAll(" ", "_");
export const pageViewHref = (title: string) => `/dashboard/pages/${titleSegment(keyOf(title))}`;

/** "revision 501: hid content, comment; showed contributor", "deleted the page". */
export function describeAction(a: TakedownAction): string {
  if (a.kind === "page")
    return a.forGood ? "deleted the page for good" : a.deleted ? "deleted the page" : "restored the page";
  const parts = [
    ...(a.hide.length > 0 ? [`hid ${a.hide.join(", ")}`] : []),
    ...(a.show.length > 0 ? [`showed ${a.show.join(", ")}`] : []),
  ];
  return `revision ${a.revision}: ${parts.join("; ") || "no change"}`;
}

export const TakedownTable: FC<{ entries: TakedownEntry[]; caption?: string; labelledBy?: string }> = ({
  entries,
  caption,
  labelledBy,
}) =>
  entries.length === 0 ? (
    <p>No takedowns yet.</p>
  ) : (
    <DataTable caption={caption} labelledBy={labelledBy} columns={["When", "By", "Page", "What", "Reason"]}>
      {entries.map((e) => (
        <tr data-takedown={e.id}>
          <td>{formatTime(e.at)}</td>
          <td>
            <bdi>{e.by}</bdi>
          </td>
          <td>
            <a href={pageViewHref(e.page)}>
              <bdi>{e.page}</bdi>
            </a>
          </td>
          <td>{describeAction(e.action)}</td>
          <td>{e.reason === "" ? <em>none given</em> : <bdi>{e.reason}</bdi>}</td>
        </tr>
      ))}
    </DataTable>
  );

export const TitleSearch: FC<{ value?: string }> = ({ value }) => (
  <form method="get" action="/dashboard/pages" role="search" class="stack">
    <div>
      <label for="page-title">Page title</label>
      <p class="hint" id="page-title-hint">
        Opens the page's revisions, where its content, comments and contributors can be hidden and the page deleted or
        restored.
      </p>
      <input type="text" id="page-title" name="title" required value={value} aria-describedby="page-title-hint" />
    </div>
    <button type="submit">Open page</button>
  </form>
);

export const TakedownsView: FC<{
  /** Null when the session may not read the log (it needs the purge scope). */
  entries: TakedownEntry[] | null;
  next: string | null;
  first: boolean;
  page: string | null;
}> = ({ entries, next, first, page }) => {
  const filter = page === null ? "" : `page=${encodeURIComponent(page)}&`;
  return (
    <>
      <h1>Takedowns</h1>
      <TitleSearch value={page ?? undefined} />
      <h2 id="log-heading">
        {page === null ? (
          "Takedown log"
        ) : (
          <>
            Takedown log of <bdi>{page}</bdi>
          </>
        )}
      </h2>
      {entries === null ? (
        <p>Your token does not carry the purge scope, so the takedown log is not shown.</p>
      ) : (
        <>
          {page === null ? null : (
            <p>
              <a href="/dashboard/takedowns">Every page's takedowns</a>
            </p>
          )}
          <TakedownTable entries={entries} labelledBy="log-heading" />
          <nav class="pager" aria-label="Takedown log pages">
            {first ? null : (
              <a href={`/dashboard/takedowns${page === null ? "" : `?${filter.slice(0, -1)}`}`}>Newest</a>
            )}
            {next ? (
              <a href={`/dashboard/takedowns?${filter}before=${encodeURIComponent(next)}`}>Older takedowns</a>
            ) : null}
          </nav>
        </>
      )}
    </>
  );
};

/** A refused form, to show again: which one, the problem, what was sent. */
export type TakedownRefusal =
  | { form: "revision"; revision: number; message: string; values: RevisionFormValues }
  | { form: "deletion"; message: string; values: DeletionFormValues };

export interface PageTakedownsProps {
  page: PageRevisions;
  /** Null when this is the newest revisions. */
  olderFrom: string | null;
  /** Null when the session may not read the log. */
  log: TakedownEntry[] | null;
  /** The session's CSRF token when it carries the write scope, so it may take down; null otherwise. */
  csrf: string | null;
  refusal: TakedownRefusal | null;
  done: string | null;
}

const FIELD_LABEL: Record<TakedownField, string> = {
  content: "content",
  comment: "comment",
  contributor: "contributor",
};

const Hidden: FC = () => <em>hidden</em>;

const RevisionForm: FC<{
  action: string;
  revision: OperatorRevision;
  csrf: string;
  refusal: Extract<TakedownRefusal, { form: "revision" }> | null;
}> = ({ action, revision: r, csrf, refusal }) => {
  const id = `r${r.id}`;
  const boxes = refusal ? { ...r.hidden, ...refusal.values.hidden } : r.hidden;
  return (
    <form method="post" action={action} class="inline" data-revision={r.id}>
      <CsrfField token={csrf} />
      {TAKEDOWN_FIELDS.map((f) => {
        const fixed = f === "content" && r.textMissing;
        return (
          <span class="choice">
            {fixed ? null : <input type="hidden" name={`was_${f}`} value={r.hidden[f] ? "1" : "0"} />}
            <input
              type="checkbox"
              id={`${id}-${f}`}
              name={f}
              value="1"
              checked={boxes[f]}
              disabled={fixed}
              aria-describedby={fixed ? `${id}-missing` : undefined}
            />{" "}
            <label for={`${id}-${f}`}>
              Hide {FIELD_LABEL[f]}
              <span class="visually-hidden"> of revision {r.id}</span>
            </label>
          </span>
        );
      })}
      {r.textMissing ? (
        <span class="hint" id={`${id}-missing`}>
          The archive never held this text.
        </span>
      ) : null}
      <span class="reason">
        <label for={`${id}-reason`}>
          Reason<span class="visually-hidden"> for revision {r.id}</span>
        </label>
        <input
          type="text"
          id={`${id}-reason`}
          name="reason"
          required
          value={refusal?.values.reason}
          aria-invalid={refusal ? "true" : undefined}
          aria-describedby={refusal ? ERRORS_ID : undefined}
        />
      </span>
      <button type="submit">
        Apply<span class="visually-hidden"> to revision {r.id}</span>
      </button>
    </form>
  );
};

const DeletionForm: FC<{
  action: string;
  deleted: boolean;
  csrf: string;
  refusal: Extract<TakedownRefusal, { form: "deletion" }> | null;
}> = ({ action, deleted, csrf, refusal }) => (
  <section aria-labelledby="deletion-heading">
    <h2 id="deletion-heading">{deleted ? "Restore the page" : "Delete the page"}</h2>
    <p class="hint" id="deletion-hint">
      {deleted
        ? "Restoring brings every revision, listing and search entry back as it was."
        : "Deleting answers 410 to the public for every URL of the page and takes it out of the listings and search; everything is kept, and it can be restored."}
    </p>
    <form method="post" action={action} class="stack" data-form="deletion">
      <CsrfField token={csrf} />
      <input type="hidden" name="deleted" value={deleted ? "0" : "1"} />
      <div>
        <label for="deletion-reason">{deleted ? "Reason for restoring" : "Reason for deleting"}</label>
        <input
          type="text"
          id="deletion-reason"
          name="reason"
          required
          value={refusal?.values.reason}
          aria-invalid={refusal ? "true" : undefined}
          aria-describedby={refusal ? `deletion-hint ${ERRORS_ID}` : "deletion-hint"}
        />
      </div>
      <button type="submit">{deleted ? "Restore page" : "Delete page"}</button>
    </form>
  </section>
);

export const PageTakedownsView: FC<PageTakedownsProps> = ({ page, olderFrom, log, csrf, refusal, done }) => {
  const base = pageViewHref(page.title);
  const segment = titleSegment(keyOf(page.title));
  return (
    <>
      <h1>
        Page <bdi>{page.title}</bdi>
      </h1>
      {done ? (
        <p class="notice" role="status">
          {done}
        </p>
      ) : null}
      {refusal ? (
        <div id={ERRORS_ID} class="alert" role="alert">
          <p>
            <strong>
              {refusal.form === "revision" ? `Revision ${refusal.revision}: ` : ""}
              {refusal.message}
            </strong>{" "}
            Nothing was changed.
          </p>
        </div>
      ) : null}
      <dl class="facts">
        <dt>State</dt>
        <dd data-field="state">{page.deleted ? "deleted: the public gets 410 for every URL of the page" : "public"}</dd>
        {page.deleted ? null : (
          <>
            <dt>Public history</dt>
            <dd>
              <a href={`/page/${segment}/history`}>the page's history</a> (the same URL answers JSON, with cursors, to a
              client that does not ask for HTML)
            </dd>
          </>
        )}
      </dl>
      {csrf === null ? (
        <p>Your token does not carry the write scope, so you can look but not take anything down.</p>
      ) : (
        <DeletionForm
          action={`${base}/deletion`}
          deleted={page.deleted}
          csrf={csrf}
          refusal={refusal?.form === "deletion" ? refusal : null}
        />
      )}
      <h2 id="page-log-heading">Takedown log of this page</h2>
      {log === null ? (
        <p>Your token does not carry the purge scope, so the takedown log is not shown.</p>
      ) : (
        <>
          <TakedownTable entries={log} labelledBy="page-log-heading" />
          <p>
            <a href={`/dashboard/takedowns?page=${encodeURIComponent(page.title)}`}>Every takedown of this page</a>
          </p>
        </>
      )}
      <h2 id="revisions-heading">Revisions</h2>
      {page.revisions.length === 0 ? (
        <p>No revisions.</p>
      ) : (
        <DataTable
          labelledBy="revisions-heading"
          columns={["Revision", "Time", "Contributor", "Comment", "Content", ...(csrf === null ? [] : ["Visibility"])]}
        >
          {page.revisions.map((r) => (
            <tr data-revision={r.id}>
              <th scope="row">
                <a href={`/page/${segment}/${r.id}`}>{r.id}</a>
              </th>
              <td>{r.timestamp}</td>
              <td data-field="contributor">{r.contributor === null ? <Hidden /> : <bdi>{r.contributor}</bdi>}</td>
              <td data-field="comment">{r.comment === null ? <Hidden /> : <bdi>{r.comment}</bdi>}</td>
              <td data-field="content">{r.textMissing ? "never held" : r.hidden.content ? <Hidden /> : "visible"}</td>
              {csrf === null ? null : (
                <td>
                  <RevisionForm
                    action={`${base}/revisions/${r.id}`}
                    revision={r}
                    csrf={csrf}
                    refusal={refusal?.form === "revision" && refusal.revision === r.id ? refusal : null}
                  />
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      <nav class="pager" aria-label="Revision pages">
        {olderFrom === null ? null : <a href={base}>Newest revisions</a>}
        {page.older ? <a href={`${base}?older=${encodeURIComponent(page.older)}`}>Older revisions</a> : null}
      </nav>
    </>
  );
};
