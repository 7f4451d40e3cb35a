/**
 * Pages a person can browse: server-rendered (Hono JSX), no scripts, no
 * session. Mounted at "/" before the read API, whose history URL it shares.
 *
 *   GET /                                    what the archive is, title search, totals, recently changed pages
 *   GET /search?q={prefix}[&after={key}]     titles starting with the prefix, in title order
 *   GET /page/{title}/history                HTML when the client prefers it (Vary: Accept); JSON otherwise,
 *                                            from read-routes.ts
 *   GET /page/{title}/compare?from=&to=      the history's compare form: 303 to the URL below
 *   GET /page/{title}/compare/{from}...{to}  what changed between two revisions, line by line
 *   GET /view/{title}[/{revid}]               the revision viewer, and the page as of a date (view-routes.tsx)
 *
 * Every read goes through the tiers with the API's own queries, and every
 * limit is in src/limits.ts (`browse.*`).
 *
 * @example
 * app.route("/", browseRoutes); // before readRoutes
 */
import { Hono } from "hono";
import { zValidator } from "@hono/zod-validator";
import { z } from "zod";
import { compareRange } from "../../../src/compare/range.ts";
import { prefersHtml } from "../../../src/browse/negotiate.ts";
import { htmlResponse, varyAccept } from "../../../src/browse/render.ts";
import { CompareView } from "../../../src/browse/views/compare.tsx";
import { HistoryView } from "../../../src/browse/views/history.tsx";
import { HomeView } from "../../../src/browse/views/home.tsx";
import { Layout } from "../../../src/browse/views/layout.tsx";
import { compareUrl, historyUrl, titleOf } from "../../../src/browse/views/links.ts";
import { SearchView } from "../../../src/browse/views/search.tsx";
import { historyQuery, revisionParam } from "../../../src/http/queries.ts";
import { URL_FORMS } from "../../../src/http/url-forms.ts";
import { CACHE_CONTROL } from "../../../src/representation/cache-control.ts";
import { invalid } from "../../../src/http/invalid.ts";
import { validated } from "../../middleware/validated.ts";
import { LIMITS } from "../../../src/limits.ts";
import { archiveOverview, searchTitles } from "../../../src/page/directory.ts";
import { normalizeTitle } from "../../../src/page/title.ts";
import { canonicalPage } from "../../middleware/canonical-page.ts";
import { renderedHeaders } from "../../../src/tiers/respond.ts";
import { readJson, type BrowseEnv } from "./read.ts";
import { viewRoutes } from "./view-routes.tsx";

export const browseRoutes = new Hono<BrowseEnv>();

/** How long a browser or cache may keep a page that changes with every write. */
const DYNAMIC = "public, max-age=30";

browseRoutes.get(URL_FORMS.home, async (c) => {
  const overview = await archiveOverview(c.env, LIMITS.browse.recentPages);
  return htmlResponse(
    <Layout title="An archive of page revisions">
      <HomeView overview={overview} />
    </Layout>,
    { cacheControl: DYNAMIC },
  );
});

const revisionId = revisionParam.shape.revid;

const searchQuery = z.object({
  q: z
    .string({ error: "Type the first letters of a title." })
    .refine((q) => q.trim() !== "", "Type the first letters of a title.")
    .transform((q, ctx) => {
      const t = normalizeTitle(q);
      // A trailing space or underscore is part of the prefix: "Many_" does not match "Manyfold".
      if (t.ok) return { typed: q.trimStart(), key: /[ _]$/.test(q) ? `${t.key}_` : t.key };
      ctx.addIssue({
        code: "custom",
        message: t.reason.startsWith("title exceeds")
          ? `A title is at most ${LIMITS.page.maxTitleBytes} bytes long; this search is longer, so no title can start with it.`
          : `No title can start with this: ${t.reason}.`,
      });
      return z.NEVER;
    }),
  after: z
    .string()
    .max(LIMITS.page.maxTitleBytes * 4)
    .default(""),
});

browseRoutes.get(
  URL_FORMS.search,
  zValidator("query", searchQuery, async (result, c) => {
    if (result.success) return;
    const problem = invalid(result.error.issues, "search", {
      q: { status: 400, code: "invalid_search" },
      after: { status: 400, code: "invalid_cursor" },
    });
    const q = c.req.query("q") ?? "";
    const message = result.error.issues[0]?.message ?? problem.title;
    return htmlResponse(
      <Layout title="Search titles">
        <SearchView
          q={q.length > LIMITS.page.maxTitleBytes * 4 ? "" : q}
          error={message}
          matches={[]}
          next={null}
          after=""
        />
      </Layout>,
      { status: problem.status },
    );
  }),
  async (c) => {
    const { q, after } = c.req.valid("query");
    const { matches, next } = await searchTitles(c.env, q.key, { after, limit: LIMITS.browse.searchResults });
    return htmlResponse(
      <Layout title={`Titles starting with ${q.typed}`}>
        <SearchView q={q.typed} matches={matches} next={next} after={after} />
      </Layout>,
      { cacheControl: DYNAMIC },
    );
  },
);

/** The JSON history route's own refusals, so both representations refuse alike. */
const HISTORY_FIELDS = {
  limit: { status: 400, code: "invalid_limit", limit: "history.maxPageSize" },
  older: { status: 400, code: "invalid_cursor" },
  newer: { status: 400, code: "invalid_cursor" },
} as const;

browseRoutes.get(URL_FORMS.history, async (c, next) => {
  if (!prefersHtml(c, "application/json")) {
    // The JSON API answers (read-routes.ts); it now depends on Accept too.
    await next();
    const varied = varyAccept(c.res);
    if (varied !== c.res) {
      c.res = undefined;
      c.res = varied;
    }
    return;
  }
  return canonicalPage(() => "/history")(c, async () => {
    const parsed = historyQuery.safeParse(c.req.query());
    if (!parsed.success) throw invalid(parsed.error.issues, "history", HISTORY_FIELDS, { page: c.req.param("title") });
    const { limit, older, newer } = parsed.data;
    const ref = c.get("ref");
    // The JSON route's query, so the same cached answer serves both; beside it, the page's years (a few index walks,
    // kept in the tiers too).
    const [{ through, value: page }, years] = await Promise.all([
      readJson(c, { kind: "history", ref, limit, cursor: older ?? newer }),
      readJson(c, { kind: "timeline", ref }),
    ]);
    const link = (key: "older" | "newer", cursor: string | null) =>
      cursor === null ? null : `${historyUrl(ref.key)}?${new URLSearchParams({ limit: String(limit), [key]: cursor })}`;
    c.res = await htmlResponse(
      <Layout title={`History of ${page.page}`} description={`Every archived revision of ${page.page}, by year.`}>
        <HistoryView
          model={{
            key: ref.key,
            title: page.page,
            total: page.total,
            revisions: page.revisions,
            older: link("older", page.cursors.older),
            newer: link("newer", page.cursors.newer),
            timeline: years.value,
          }}
        />
      </Layout>,
      { cacheControl: CACHE_CONTROL.changing, varyAccept: true, headers: renderedHeaders(through) },
    );
  });
});

const compareForm = z.object({ from: revisionId, to: revisionId });

browseRoutes.get(
  URL_FORMS.compareForm,
  canonicalPage(() => "/compare"),
  validated("query", compareForm, "compare", {
    from: { status: 400, code: "invalid_revision_id" },
    to: { status: 400, code: "invalid_revision_id" },
  }),
  (c) => {
    const { from, to } = c.req.valid("query");
    return c.redirect(compareUrl(c.get("ref").key, from, to), 303);
  },
);

const compareParam = z.object({ title: z.string(), range: compareRange });

browseRoutes.get(
  URL_FORMS.compare,
  canonicalPage((c) => `/compare/${encodeURIComponent(c.req.param("range")!)}`),
  validated("param", compareParam, "compare", { range: { status: 400, code: "invalid_compare_range" } }),
  async (c) => {
    const { range } = c.req.valid("param");
    const ref = c.get("ref");
    // The origin diffs the pair once (src/origin/compare.ts); the tiers keep its answer, and a removal purges it.
    const { through, value: answer } = await readJson(c, { kind: "compare", ref, from: range.from, to: range.to });
    const title = titleOf(ref.key);
    // Two specific revisions never change; private, so no shared cache keeps a copy a suppression could not purge.
    return htmlResponse(
      <Layout title={`${title}: ${range.from} compared with ${range.to}`}>
        <CompareView model={{ key: ref.key, title, ...answer }} />
      </Layout>,
      { cacheControl: "private, max-age=300", headers: renderedHeaders(through) },
    );
  },
);

browseRoutes.route("/", viewRoutes);
