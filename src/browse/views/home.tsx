/** The front page: what the archive is, a title search, the totals and the recently changed pages. */
import type { FC } from "hono/jsx";
import { formatBytes, formatCount, formatTime } from "../../dashboard/format.ts";
import type { DirectoryOverview } from "../../page/directory.ts";
import { LIMITS } from "../../limits.ts";
import { historyUrl, pageUrl, titleOf } from "./links.ts";

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

export const HomeView: FC<{ overview: DirectoryOverview }> = ({ overview: { totals, recent } }) => (
  <>
    <h1>Palimpsest</h1>
    <p class="lede">
      Palimpsest is an archive of page revisions: every version of every page it holds, stored as compressed deltas and served over plain HTTP
      from the data centre nearest to you. Look a page up by title, read its history year by year, open any revision as it was, and see what
      changed between two of them.
    </p>
    <section aria-labelledby="search-heading">
      <h2 id="search-heading">Search titles</h2>
      <SearchForm />
    </section>
    <section aria-labelledby="totals-heading">
      <h2 id="totals-heading">In the archive</h2>
      <dl class="facts">
        <div>
          <dt>Pages</dt>
          <dd>
            <data value={String(totals.pages - totals.deleted)}>{formatCount(totals.pages - totals.deleted)}</data>
          </dd>
        </div>
        <div>
          <dt>Revisions</dt>
          <dd>
            <data value={String(totals.revisions)}>{formatCount(totals.revisions)}</data>
          </dd>
        </div>
        <div>
          <dt>Stored</dt>
          <dd>
            <data value={String(totals.blobBytes)}>{formatBytes(totals.blobBytes)}</data>
            {totals.rawBytes > 0 ? ` for ${formatBytes(totals.rawBytes)} of text (${((totals.blobBytes / totals.rawBytes) * 100).toFixed(1)} %)` : null}
          </dd>
        </div>
      </dl>
      {totals.reported < totals.pages ? (
        <p class="hint">{`${formatCount(totals.pages - totals.reported)} pages not changed since figures were kept are counted as pages only.`}</p>
      ) : null}
    </section>
    <section aria-labelledby="recent-heading">
      <h2 id="recent-heading">Recently changed</h2>
      {recent.length === 0 ? (
        <p>No pages yet. Import some with <code>npx palimpsest import FILE</code>.</p>
      ) : (
        <ul class="plain">
          {recent.map((p) => (
            <li>
              <a href={historyUrl(p.key)}>
                <bdi>{titleOf(p.key)}</bdi>
              </a>{" "}
              <span class="meta">
                {`${formatCount(p.revisions)} revision${p.revisions === 1 ? "" : "s"}, changed `}
                <time datetime={new Date(p.changedAt).toISOString()}>{formatTime(p.changedAt)}</time> ·{" "}
              </span>
              <a href={pageUrl(p.key)}>
                latest<span class="visually-hidden">{` revision of ${titleOf(p.key)}`}</span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  </>
);
