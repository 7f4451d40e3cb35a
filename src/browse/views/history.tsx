/**
 * A page's history as a timeline by year (newest first, a cursor page at a
 * time, like the JSON), every revision linked, each beside a link to what it
 * changed, a form to compare any two, and the page's Memento URLs; each
 * visible revision's viewer and Wayback-style URL, a form to jump to a
 * date and the years with edits, each linked to its first edit. A
 * suppressed revision shows its id, time, contributor and comment only, and
 * the revision after it shows what changed since the nearest earlier
 * revision whose content is visible.
 */
import type { FC } from "hono/jsx";
import { formatBytes } from "../../ui/format.ts";
import type { HistoryEntry } from "../../page/types.ts";
import type { PageTimeline } from "../../page/timeline.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { AsOfForm } from "./as-of-form.tsx";
import { revisionCount } from "./home.tsx";
import { compareUrl, historyUrl, pageUrl, revisionUrl, timemapUrl, viewUrl, webUrl } from "./links.ts";
import { when, YearLinks } from "./revision.tsx";

export interface HistoryModel {
  key: string;
  title: string;
  total: number;
  revisions: HistoryEntry[];
  /** Relative URLs of the neighbouring cursor pages. */
  older: string | null;
  newer: string | null;
  /** The page's years with edits and latest visible revision (src/page/timeline.ts). */
  timeline: PageTimeline;
}

function byYear(revisions: HistoryEntry[]): Array<{ year: string; revisions: HistoryEntry[] }> {
  const years: Array<{ year: string; revisions: HistoryEntry[] }> = [];
  for (const r of revisions) {
    const year = r.timestamp.slice(0, 4);
    const last = years[years.length - 1];
    if (last?.year === year) last.revisions.push(r);
    else years.push({ year, revisions: [r] });
  }
  return years;
}

/**
 * What "changes" compares a revision with: its parent, or past a suppressed parent the nearest visible revision before
 * it.
 */
const changesFrom = (r: HistoryEntry): number | null =>
  r.previousVisibleId === undefined ? r.parentId : r.previousVisibleId;

const Changes: FC<{ page: string; r: HistoryEntry }> = ({ page, r }) => {
  if (r.parentId === null) return <span class="meta">first</span>;
  const from = changesFrom(r);
  if (r.suppressed || from === null) return null;
  return (
    <a href={compareUrl(page, from, r.id)}>
      changes
      <span class="visually-hidden">{` made by revision ${r.id}${from === r.parentId ? "" : ` and the suppressed revisions before it`}`}</span>
    </a>
  );
};

const Pager: FC<{ model: HistoryModel; label: string }> = ({ model, label }) =>
  model.older || model.newer ? (
    <nav class="pager" aria-label={label}>
      {model.newer ? (
        <a href={model.newer} rel="prev">
          Newer revisions
        </a>
      ) : null}
      {model.older ? (
        <a href={model.older} rel="next">
          Older revisions
        </a>
      ) : null}
    </nav>
  ) : null;

/** The TimeMap links the Memento section offers, by format. */
/** A revision's cell for one end of the comparison the history's form asks for. */
const CompareChoice: FC<{ end: "from" | "to"; id: number; checked: boolean }> = ({ end, id, checked }) => (
  <td>
    <input type="radio" name={end} value={String(id)} aria-label={`Compare ${end} revision ${id}`} checked={checked} />
  </td>
);

const TIMEMAP_FORMATS = [
  ["link format", "link"],
  ["JSON", "json"],
] as const;

export const HistoryView: FC<{ model: HistoryModel }> = ({ model }) => {
  const { key, title, revisions } = model;
  const [newest, second] = revisions;
  return (
    <>
      <h1>
        History of <bdi>{title}</bdi>
      </h1>
      <p>
        {`${revisionCount(model.total)} archived; this page lists ${revisions.length}, newest first. `}
        {model.timeline.latest ? (
          <>
            <a href={viewUrl(key, model.timeline.latest.id)}>Read the latest revision</a> (
            <a href={pageUrl(key)}>raw</a>).
          </>
        ) : (
          <a href={pageUrl(key)}>Read the latest revision</a>
        )}
      </p>
      <section aria-labelledby="jump-heading">
        <h2 id="jump-heading">Jump to a date</h2>
        <AsOfForm pageKey={key} idPrefix="jump" legend="The page as of a date" />
        <YearLinks pageKey={key} timeline={model.timeline} />
      </section>
      <section aria-labelledby="memento-heading">
        <h2 id="memento-heading">Memento (time travel)</h2>
        <p>Every revision below is a Memento at its own URL. Memento clients can also use:</p>
        <dl class="facts">
          <div>
            <dt>TimeGate</dt>
            <dd>
              <a href={pageUrl(key)}>
                <code>{pageUrl(key)}</code>
              </a>{" "}
              (send <code>Accept-Datetime</code>)
            </dd>
          </div>
          {TIMEMAP_FORMATS.map(([name, format]) => (
            <div>
              <dt>{`TimeMap (${name})`}</dt>
              <dd>
                <a href={timemapUrl(key, format)}>
                  <code>{timemapUrl(key, format)}</code>
                </a>
              </dd>
            </div>
          ))}
        </dl>
      </section>
      <Pager model={model} label="History pages, top" />
      <form method="get" action={`${pageUrl(key)}/compare`} aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Timeline</h2>
        <p class="hint">
          Pick two revisions with the From and To columns, then compare them; or follow “changes” to see what one edit
          did.
        </p>
        {byYear(revisions).map(({ year, revisions: inYear }) => (
          <section class="year" aria-labelledby={`y${year}`}>
            <h3 id={`y${year}`}>{year}</h3>
            <DataTable
              caption={`${inYear.length} revision${inYear.length === 1 ? "" : "s"} from ${year} on this page`}
              columns={[
                "Revision",
                "Date",
                "Contributor",
                "Comment",
                { n: "Size" },
                "Changes",
                "View",
                "Wayback URL",
                "From",
                "To",
              ]}
            >
              {inYear.map((r) => (
                <tr data-revision={String(r.id)}>
                  <th scope="row">
                    {r.suppressed ? (
                      <span>
                        {String(r.id)} <span class="meta">(suppressed)</span>
                      </span>
                    ) : (
                      <a href={revisionUrl(key, r.id)}>{String(r.id)}</a>
                    )}
                  </th>
                  <td>
                    <time datetime={r.timestamp}>{when(r.timestamp)}</time>
                  </td>
                  <td>
                    {r.contributorHidden ? <span class="meta">(username removed)</span> : <bdi>{r.contributor}</bdi>}
                  </td>
                  <td>{r.commentHidden ? <span class="meta">(edit summary removed)</span> : <bdi>{r.comment}</bdi>}</td>
                  <td class="n">
                    {r.suppressed ? (
                      <span class="meta">hidden</span>
                    ) : (
                      <data value={String(r.bytes)}>{formatBytes(r.bytes)}</data>
                    )}
                  </td>
                  <td>
                    <Changes page={key} r={r} />
                  </td>
                  <td>
                    {r.suppressed ? null : (
                      <a href={viewUrl(key, r.id)}>
                        view<span class="visually-hidden">{` revision ${r.id}`}</span>
                      </a>
                    )}
                  </td>
                  <td class="web">
                    {r.suppressed ? null : (
                      <a href={webUrl(key, r.timestamp)}>
                        <code>{webUrl(key, r.timestamp)}</code>
                      </a>
                    )}
                  </td>
                  <CompareChoice end="from" id={r.id} checked={r === second} />
                  <CompareChoice end="to" id={r.id} checked={r === newest} />
                </tr>
              ))}
            </DataTable>
          </section>
        ))}
        {revisions.length > 1 ? <button type="submit">Compare selected revisions</button> : null}
      </form>
      <Pager model={model} label="History pages, bottom" />
      <p>
        <a href={historyUrl(key)}>Newest revisions</a> · <a href="/">Home</a>
      </p>
    </>
  );
};
