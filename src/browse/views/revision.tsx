/**
 * The revision viewer (`/view/{title}/{revid}`): one revision as a person
 * reads it. Its title, date, id, contributor and comment (user text inside
 * <bdi>), the previous and next edit (visible ones only, in history order),
 * the history, a compare with the previous edit, the Wayback-style URL that
 * answers it, a form for the page as of another date, the years with edits,
 * and the archived content shown so it cannot act: HTML in a sandboxed
 * <iframe> of the raw revision (whose answer is sandboxed too), every other
 * model as escaped text in a <pre>. A suppressed revision shows what its
 * history row shows, and no content.
 */
import type { FC } from "hono/jsx";
import { formatBytes, formatCount } from "../../ui/format.ts";
import type { PageTimeline, RevisionPlace, TimelineMark } from "../../page/timeline.ts";
import { LIMITS } from "../../limits.ts";
import { AsOfForm } from "./as-of-form.tsx";
import { compareUrl, historyUrl, revisionUrl, viewUrl, webUrl } from "./links.ts";

/** What the viewer shows of the content. */
export type ShownContent =
  | { kind: "frame"; src: string }
  | { kind: "text"; text: string; truncated: boolean }
  | { kind: "too_big"; bytes: number }
  | { kind: "suppressed" };

export interface RevisionViewModel {
  key: string;
  title: string;
  timeline: PageTimeline;
  place: RevisionPlace;
  content: ShownContent;
  /** The time a person asked for (ISO-8601 UTC), when they came from the as-of form or `?at=`. */
  asked?: string;
}

/** "2019-03-05 14:02:11 UTC": how every browse page writes a time. */
export const when = (timestamp: string) => timestamp.replace("T", " ").replace(/Z$/, " UTC");

const Time: FC<{ at: string }> = ({ at }) => <time datetime={at}>{when(at)}</time>;

const EditLink: FC<{ pageKey: string; mark: TimelineMark; rel: "prev" | "next"; label: string }> = ({
  pageKey,
  mark,
  rel,
  label,
}) => (
  <a href={viewUrl(pageKey, mark.id)} rel={rel}>
    {`${label}: revision ${mark.id}, `}
    <Time at={mark.timestamp} />
  </a>
);

const Asked: FC<{ asked: string; place: RevisionPlace }> = ({ asked, place }) => (
  <p class="note" role="status">
    {`You asked for the page as of `}
    <Time at={asked} />
    {place.prev === null && place.effectiveTimestamp > asked
      ? ". No revision of it is that old: this is its first."
      : ". This is the revision current then: the newest one made by that time."}
  </p>
);

const Content: FC<{ model: RevisionViewModel }> = ({ model }) => {
  const { key, title, place, content } = model;
  const id = place.revision.id;
  switch (content.kind) {
    case "suppressed":
      return (
        <p class="alert" role="status">
          This revision's content is suppressed: it is no longer shown. Its date, contributor and comment stay listed,
          as in the history.
        </p>
      );
    case "frame":
      return (
        <>
          <p class="hint">
            Archived HTML, shown in a sandboxed frame: none of its scripts, forms or pop-ups run.{" "}
            <a href={content.src}>Open it on its own</a>.
          </p>
          <iframe
            class="archived"
            src={content.src}
            sandbox=""
            referrerpolicy="no-referrer"
            loading="lazy"
            title={`Revision ${id} of ${title}, as archived`}
          ></iframe>
        </>
      );
    case "too_big":
      return (
        <p class="alert" role="status">
          {`This revision is ${formatBytes(content.bytes)}, more than this page shows (limit `}
          <code>browse.viewMaxRevisionBytes</code>
          {`). `}
          <a href={revisionUrl(key, id)}>Open the raw revision</a> instead.
        </p>
      );
    case "text":
      return (
        <>
          {content.truncated ? (
            <p class="alert" role="status">
              {`The text is longer than this page shows: it stops after ${formatCount(LIMITS.browse.viewMaxShownChars)} characters (limit `}
              <code>browse.viewMaxShownChars</code>
              {`). `}
              <a href={revisionUrl(key, id)}>Open the raw revision</a> for the rest.
            </p>
          ) : null}
          <pre class="archived">{content.text}</pre>
        </>
      );
  }
};

export const RevisionView: FC<{ model: RevisionViewModel }> = ({ model }) => {
  const { key, title, timeline, place, asked } = model;
  const r = place.revision;
  return (
    <>
      <h1>
        <bdi>{title}</bdi>
        {`: revision ${r.id}`}
      </h1>
      {asked ? <Asked asked={asked} place={place} /> : null}
      <dl class="facts">
        <div>
          <dt>Date</dt>
          <dd>
            <Time at={r.timestamp} />
            {place.effectiveTimestamp !== r.timestamp ? (
              <>
                {" (dated before the revision it was made on; current from "}
                <Time at={place.effectiveTimestamp} />)
              </>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>Revision</dt>
          <dd>{`${r.id}, edit ${formatCount(place.position)} of ${formatCount(timeline.total)}`}</dd>
        </div>
        <div>
          <dt>Contributor</dt>
          <dd>{r.contributorHidden ? <span class="meta">(username removed)</span> : <bdi>{r.contributor}</bdi>}</dd>
        </div>
        <div>
          <dt>Comment</dt>
          <dd>
            {r.commentHidden ? (
              <span class="meta">(edit summary removed)</span>
            ) : r.comment ? (
              <bdi>{r.comment}</bdi>
            ) : (
              <span class="meta">none</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Content</dt>
          <dd>{r.suppressed ? `${r.model}, suppressed` : `${r.model}, ${formatBytes(r.bytes)}`}</dd>
        </div>
        <div>
          <dt>Wayback URL</dt>
          <dd>
            {place.webAnswersIt ? (
              <a href={webUrl(key, place.effectiveTimestamp)}>
                <code>{webUrl(key, place.effectiveTimestamp)}</code>
              </a>
            ) : (
              <span class="meta">
                {r.suppressed
                  ? "none: a suppressed revision is never the one current at a time"
                  : "none of its own: a later revision was current from the same second"}
              </span>
            )}
          </dd>
        </div>
      </dl>
      <nav class="edits" aria-label="Edits">
        <ul>
          <li>
            {place.prev ? (
              <EditLink pageKey={key} mark={place.prev} rel="prev" label="Previous edit" />
            ) : (
              <span class="meta">No earlier edit</span>
            )}
          </li>
          <li>
            {place.next ? (
              <EditLink pageKey={key} mark={place.next} rel="next" label="Next edit" />
            ) : (
              <span class="meta">No later edit: this is the latest</span>
            )}
          </li>
        </ul>
      </nav>
      <ul class="links">
        {place.prev && !r.suppressed ? (
          <li>
            <a href={compareUrl(key, place.prev.id, r.id)}>Compare with the previous edit</a>
          </li>
        ) : null}
        <li>
          <a href={historyUrl(key)}>
            History of <bdi>{title}</bdi>
          </a>
        </li>
        {timeline.latest && timeline.latest.id !== r.id ? (
          <li>
            <a href={viewUrl(key, timeline.latest.id)}>Latest revision</a>
          </li>
        ) : null}
        {r.suppressed ? null : (
          <li>
            <a href={revisionUrl(key, r.id)}>Raw revision</a>
          </li>
        )}
      </ul>
      <section aria-labelledby="content-heading">
        <h2 id="content-heading">Content</h2>
        <Content model={model} />
      </section>
      <section aria-labelledby="travel-heading">
        <h2 id="travel-heading">Time travel</h2>
        <AsOfForm pageKey={key} idPrefix="asof" legend="The page as of a date" />
        <YearLinks pageKey={key} timeline={timeline} current={r.timestamp.slice(0, 4)} />
      </section>
    </>
  );
};

/** Each year with edits, linked to its first edit; `current` marks the year on show. */
export const YearLinks: FC<{ pageKey: string; timeline: PageTimeline; current?: string }> = ({
  pageKey,
  timeline,
  current,
}) =>
  timeline.years.length === 0 ? null : (
    <nav class="years" aria-label="Years with edits">
      <p class="hint">The first edit of each year:</p>
      <ul>
        {timeline.years.map((y) => (
          <li>
            <a
              href={viewUrl(pageKey, y.id)}
              aria-current={String(y.year).padStart(4, "0") === current ? "true" : undefined}
            >
              {String(y.year)}
              <span class="visually-hidden">{`: revision ${y.id}, ${when(y.timestamp)}`}</span>
            </a>
          </li>
        ))}
      </ul>
      {timeline.moreYears ? (
        <p class="hint">{`Only the first ${LIMITS.browse.timelineYears} years are listed; the form reaches the rest.`}</p>
      ) : null}
    </nav>
  );
