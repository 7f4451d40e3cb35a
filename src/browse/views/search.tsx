/** Search results: titles starting with the query, in title order, a page at a time. */
import type { FC } from "hono/jsx";
import type { TitleMatch } from "../../page/directory.ts";
import { HistoryLink, LatestLink, revisionCount, SearchForm } from "./home.tsx";

export const SearchView: FC<{
  q: string;
  error?: string;
  matches: TitleMatch[];
  next: string | null;
  after: string;
}> = ({ q, error, matches, next, after }) => (
  <>
    <h1>{error || !q ? "Search titles" : `Titles starting with “${q}”`}</h1>
    <SearchForm q={q} error={error} />
    {error ? null : (
      <section aria-labelledby="results-heading">
        <h2 id="results-heading">{matches.length === 0 ? "No titles found" : after ? "More results" : "Results"}</h2>
        {matches.length === 0 ? (
          <p>{`No title in the archive starts with “${q}”.`}</p>
        ) : (
          <ul class="plain">
            {matches.map((m) => (
              <li>
                <HistoryLink pageKey={m.key} />{" "}
                <span class="meta">
                  {m.deleted ? "deleted" : m.revisions === null ? "" : revisionCount(m.revisions)}
                </span>
                {m.deleted ? null : (
                  <>
                    {" · "}
                    <LatestLink pageKey={m.key} />
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
        {next ? (
          <nav class="pager" aria-label="Search results">
            <a href={`/search?${new URLSearchParams({ q, after: next })}`} rel="next">
              Next results
            </a>
          </nav>
        ) : null}
      </section>
    )}
  </>
);
