/**
 * The archive's public URL grammar for readers: every form a reader's GET
 * can take, by name, as the path Hono registers. The routes register exactly
 * these paths (workers/routes/read, browse and memento), and a purge
 * resolves a URL against them (src/purge/canonical.ts, whose table of cache
 * keys is a record over every form: a form added here fails tsc until the
 * purge says whether its answers are kept in the tiers, and under which
 * key). test/workers/purge/url-forms.unit.test.ts checks that the router
 * registers exactly these forms and chooses the same form for a URL as
 * `matchUrlForm` does.
 *
 * Each `:name` is one path segment, never empty. A `:title` is a page title
 * as its segment is written (`titleSegment`, src/page/page-ref.ts) and read
 * (`pageRef`); what the other params and the queries accept is in
 * src/http/queries.ts.
 *
 * @example
 * readRoutes.get(URL_FORMS.history, …);
 * matchUrlForm(["page", "Main_Page", "history"]); // { form: "history", params: { title: "Main_Page" } }
 */
export const URL_FORMS = {
  home: "/",
  search: "/search",
  latest: "/page/:title",
  history: "/page/:title/history",
  export: "/page/:title/export",
  compareForm: "/page/:title/compare",
  compare: "/page/:title/compare/:range",
  revision: "/page/:title/:revid",
  view: "/view/:title",
  viewRevision: "/view/:title/:revid",
  timemap: "/timemap/:format/:title",
  wayback: "/web/:timestamp/:title",
} as const;

export type UrlFormName = keyof typeof URL_FORMS;

export interface UrlFormMatch {
  form: UrlFormName;
  /** Each `:name`'s segment, as given (decoded by the caller or not). */
  params: Record<string, string>;
}

const PATTERNS = (Object.entries(URL_FORMS) as Array<[UrlFormName, string]>).map(([form, path]) => ({
  form,
  segments: path.split("/").slice(1),
}));

/**
 * The form a path's segments (`path.split("/").slice(1)`) take, and its
 * params; null if none. Where two forms fit, a literal segment wins over a
 * param at the first place they differ (`/page/X/history` is the history,
 * not revision `history`), as the routes answer.
 */
export function matchUrlForm(segments: readonly string[]): UrlFormMatch | null {
  let best: { match: UrlFormMatch; literals: boolean[] } | null = null;
  for (const pattern of PATTERNS) {
    if (pattern.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const literals = pattern.segments.map((p) => !p.startsWith(":"));
    const fits = pattern.segments.every((p, i) => {
      const s = segments[i]!;
      if (literals[i]) return p === s;
      params[p.slice(1)] = s;
      return s !== "";
    });
    if (!fits) continue;
    if (best === null || moreLiteral(literals, best.literals))
      best = { match: { form: pattern.form, params }, literals };
  }
  return best?.match ?? null;
}

/** Whether `a` has a literal where `b` has a param, at the first place they differ. */
function moreLiteral(a: boolean[], b: boolean[]): boolean {
  const i = a.findIndex((literal, j) => literal !== b[j]);
  return i !== -1 && a[i]!;
}
