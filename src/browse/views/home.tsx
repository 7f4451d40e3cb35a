/** The front page: what the archive is, a title search, the totals and the recently changed pages. */
import type { Child, FC } from "hono/jsx";
import { formatBytes, formatCount, formatTime } from "../../ui/format.ts";
import type { DirectoryOverview } from "../../page/directory.ts";
import { LIMITS } from "../../limits.ts";
import { historyUrl, titleOf, viewUrl } from "./links.ts";

export const SearchForm: FC<{ q?: string; error?: string }> = ({ q, error }) => (
  <form class="search" method="get" action="/search">
    <div>
      <label for="q">Title starts with</label>
      <input
        type="search"
        id="q"
        name="q"
        value={q ?? ""}
        required
        maxlength={LIMITS.page.maxTitleBytes}
        aria-describedby={error ? "q-hint q-error" : "q-hint"}
        aria-invalid={error ? "true" : undefined}
      />
      <p class="hint" id="q-hint">
        Case matters after the first letter, as in MediaWiki: <code>vel</code> finds <code>Vellum</code>.
      </p>
      {error ? (
        <p class="alert" id="q-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
    <button type="submit">Search</button>
  </form>
);

/** "1 revision", "1,204 revisions". */
export const revisionCount = (n: number) => `${formatCount(n)} revision${n === 1 ? "" : "s"}`;

/** A page's title, linking to its history: how every list of pages names one. */
export const HistoryLink: FC<{ pageKey: string }> = ({ pageKey }) => (
  <a href={historyUrl(pageKey)}>
    <bdi>{titleOf(pageKey)}</bdi>
  </a>
);

/** The link to a page's latest revision in the viewer, named in full for screen readers. */
export const LatestLink: FC<{ pageKey: string }> = ({ pageKey }) => (
  <a href={viewUrl(pageKey)}>
    latest<span class="visually-hidden">{` revision of ${titleOf(pageKey)}`}</span>
  </a>
);

/** One figure of the totals: its name, the number as machine-readable data, formatted, and what the caller adds. */
const Fact: FC<{ term: string; value: number; format: (n: number) => string; children?: Child }> = ({
  term,
  value,
  format,
  children,
}) => (
  <div>
    <dt>{term}</dt>
    <dd>
      <data value={String(value)}>{format(value)}</data>
      {children}
    </dd>
  </div>
);

export const HomeView: FC<{ overview: DirectoryOverview }> = ({ overview: { totals, recent } }) => (
  <>
    <h1>Palimpsest</h1>
    <p class="lede">
      Palimpsest is an archive of page revisions: every version of every page it holds, stored as compressed deltas and
      served over plain HTTP from the data centre nearest to you. Look a page up by title, read its history year by
      year, open any revision as it was, and see what changed between two of them.
    </p>
    <section aria-labelledby="search-heading">
      <h2 id="search-heading">Search titles</h2>
      <SearchForm />
    </section>
    <section aria-labelledby="totals-heading">
      <h2 id="totals-heading">In the archive</h2>
      <dl class="facts">
        <Fact term="Pages" value={totals.pages - totals.deleted} format={formatCount} />
        <Fact term="Revisions" value={totals.revisions} format={formatCount} />
        <Fact term="Stored" value={totals.blobBytes} format={formatBytes}>
          {totals.rawBytes > 0
            ? ` for ${formatBytes(totals.rawBytes)} of text (${((totals.blobBytes / totals.rawBytes) * 100).toFixed(1)} %)`
            : null}
        </Fact>
      </dl>
      {totals.reported < totals.pages ? (
        <p class="hint">{`${formatCount(totals.pages - totals.reported)} pages not changed since figures were kept are counted as pages only.`}</p>
      ) : null}
    </section>
    <section aria-labelledby="recent-heading">
      <h2 id="recent-heading">Recently changed</h2>
      {recent.length === 0 ? (
        <p>
          No pages yet. Import some with <code>npx palimpsest import FILE</code>.
        </p>
      ) : (
        <ul class="plain">
          {recent.map((p) => (
            <li>
              <HistoryLink pageKey={p.key} />{" "}
              <span class="meta">
                {`${revisionCount(p.revisions)}, changed `}
                <time datetime={new Date(p.changedAt).toISOString()}>{formatTime(p.changedAt)}</time> ·{" "}
              </span>
              <LatestLink pageKey={p.key} />
            </li>
          ))}
        </ul>
      )}
    </section>
  </>
);
