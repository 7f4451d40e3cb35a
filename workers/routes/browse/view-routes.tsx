/**
 * The revision viewer, for people: one revision with its date, id,
 * contributor, comment, previous and next edit, and its content shown
 * safely (src/browse/views/revision.tsx), and "the page as of a date".
 *
 *   GET /view/{title}                               303 to the latest visible revision's viewer
 *   GET /view/{title}?at={time}                     303 to the viewer of the revision current then
 *   GET /view/{title}?year=2019[&month=3][&day=5]   the same, from the as-of form
 *   GET /view/{title}/{revid}[?asof={14 digits}]    the viewer (410 for a suppressed revision, without its content)
 *
 * `?at=` takes what `/web/` takes (1 to 14 digits, `2019` is 2019-01-01T00:00:00Z) or ISO-8601,
 * and "current then" is the TimeGate's choice: the same `memento` answer, read through the
 * tiers. Neighbours and years come from the page's `timeline` answer (src/origin/timeline-answer.ts),
 * a few index walks in its PageStore however long the history; a text revision's bytes come
 * through the tiers as the API's own read (`browse.viewMaxRevisionBytes` at most), an HTML
 * revision's are never read here: the page frames its raw URL.
 *
 * @example
 * browseRoutes.route("/", viewRoutes);
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { htmlResponse } from "../../../src/browse/render.ts";
import { Layout } from "../../../src/browse/views/layout.tsx";
import { revisionUrl, viewUrl } from "../../../src/browse/views/links.ts";
import { RevisionView, type ShownContent } from "../../../src/browse/views/revision.tsx";
import { formatWaybackTimestamp, utcSeconds } from "../../../src/http/datetime.ts";
import { ProblemError } from "../../../src/http/problem.ts";
import { revisionParam } from "../../../src/http/queries.ts";
import { URL_FORMS } from "../../../src/http/url-forms.ts";
import { parseAt } from "../../../src/http/timestamps.ts";
import { validated } from "../../middleware/validated.ts";
import { parseWaybackTimestamp } from "../../../src/http/wayback.ts";
import { LIMITS } from "../../../src/limits.ts";
import { CACHE_CONTROL } from "../../../src/representation/cache-control.ts";
import { canonicalPage } from "../../middleware/canonical-page.ts";
import { renderedHeaders } from "../../../src/tiers/respond.ts";
import { readJson, readRevision, type BrowseEnv } from "./read.ts";

export const viewRoutes = new Hono<BrowseEnv>();

const DATE_FIELDS = {
  at: { status: 400, code: "invalid_timestamp" },
  year: { status: 400, code: "invalid_date" },
  month: { status: 400, code: "invalid_date" },
  day: { status: 400, code: "invalid_date" },
} as const;

/** The time asked for, in epoch seconds, or null for the latest. */
const asOfQuery = z
  .object({
    at: z
      .string()
      .transform(
        (s, ctx) =>
          parseWaybackTimestamp(s) ??
          parseAt(s) ??
          (ctx.addIssue({
            code: "custom",
            message: `${JSON.stringify(s.slice(0, 64))} is not a time: give YYYY[MM[DD[hh[mm[ss]]]]] or ISO-8601`,
          }),
          z.NEVER),
      )
      .optional(),
    year: z
      .string()
      .regex(/^\d{1,4}$/, "must be a year, 1 to 9999")
      .optional(),
    month: z
      .string()
      .regex(/^(|0?[1-9]|1[0-2])$/, "must be a month, 1 to 12")
      .optional(),
    day: z
      .string()
      .regex(/^(|0?[1-9]|[12]\d|3[01])$/, "must be a day, 1 to 31")
      .optional(),
  })
  .transform((q, ctx): number | null => {
    if (q.at !== undefined) return q.at;
    if (q.year === undefined || q.year === "" || Number(q.year) < 1) {
      if (q.year === undefined && !q.month && !q.day) return null;
      ctx.addIssue({ code: "custom", path: ["year"], message: "must be a year, 1 to 9999" });
      return z.NEVER;
    }
    const at = utcSeconds(Number(q.year), q.month ? Number(q.month) - 1 : 0, q.day ? Number(q.day) : 1, 0, 0, 0);
    if (at === null) {
      ctx.addIssue({ code: "custom", path: ["day"], message: `${q.year}-${q.month}-${q.day} is not a date` });
      return z.NEVER;
    }
    return at;
  });

/** A redirect to a viewer: it changes with every write of the page, as the TimeGate's does. */
function seeViewer(c: Context<BrowseEnv>, location: string): Response {
  const res = c.redirect(location, 303);
  res.headers.set("cache-control", CACHE_CONTROL.changing);
  return res;
}

viewRoutes.get(
  URL_FORMS.view,
  canonicalPage(() => "", "/view"),
  validated("query", asOfQuery, "view", DATE_FIELDS),
  async (c) => {
    const at = c.req.valid("query");
    const ref = c.get("ref");
    if (at === null) {
      const { value: timeline } = await readJson(c, { kind: "timeline", ref });
      if (!timeline.latest)
        throw new ProblemError({
          status: 404,
          code: "revision_not_found",
          detail: `${ref.title} has no revision that is not suppressed`,
          extensions: { page: ref.title },
        });
      return seeViewer(c, viewUrl(ref.key, timeline.latest.id));
    }
    // The TimeGate's own answer: `?at=`, Accept-Datetime and `/web/` choose alike.
    const { value: info } = await readJson(c, { kind: "memento", ref, which: { at } });
    return seeViewer(c, `${viewUrl(ref.key, info.self.id)}?asof=${formatWaybackTimestamp(at)}`);
  },
);

const viewParam = z.object({ title: z.string(), revid: revisionParam.shape.revid });

const askedQuery = z.object({
  asof: z
    .string()
    .regex(/^\d{14}$/, { message: "must be 14 digits, YYYYMMDDhhmmss", abort: true })
    .transform(
      (s, ctx) =>
        parseWaybackTimestamp(s) ?? (ctx.addIssue({ code: "custom", message: `${s} names no instant` }), z.NEVER),
    )
    .optional(),
});

/** At most `max` UTF-16 units of `text`, never half a surrogate pair. */
function head(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

viewRoutes.get(
  URL_FORMS.viewRevision,
  canonicalPage((c) => `/${encodeURIComponent(c.req.param("revid")!)}`, "/view"),
  validated("param", viewParam, "view", { revid: { status: 400, code: "invalid_revision_id" } }),
  validated("query", askedQuery, "view", { asof: { status: 400, code: "invalid_timestamp" } }),
  async (c) => {
    const { revid } = c.req.valid("param");
    const { asof } = c.req.valid("query");
    const ref = c.get("ref");
    const { through, value: timeline } = await readJson(c, { kind: "timeline", ref, id: revid });
    const place = timeline.place!;
    const r = place.revision;
    let content: ShownContent;
    if (r.suppressed) content = { kind: "suppressed" };
    else if (r.model === "html") content = { kind: "frame", src: revisionUrl(ref.key, r.id) };
    else if (r.bytes > LIMITS.browse.viewMaxRevisionBytes) content = { kind: "too_big", bytes: r.bytes };
    else {
      // The API's own read: the tiers keep it, immutable, for both.
      const text = new TextDecoder().decode(await readRevision(c, { kind: "revision", ref, id: r.id }));
      const max = LIMITS.browse.viewMaxShownChars;
      content = { kind: "text", text: head(text, max), truncated: text.length > max };
    }
    return htmlResponse(
      <Layout
        title={`${timeline.title}: revision ${r.id}`}
        description={`Revision ${r.id} of ${timeline.title}, ${r.timestamp}, with its neighbours in the history.`}
      >
        <RevisionView
          model={{
            key: ref.key,
            title: timeline.title,
            timeline,
            place,
            content,
            ...(asof === undefined ? {} : { asked: new Date(asof * 1000).toISOString().replace(".000Z", "Z") }),
          }}
        />
      </Layout>,
      {
        status: r.suppressed ? 410 : 200,
        // Private: the text is in the page, and a suppression can purge our tiers, not a shared cache.
        cacheControl: "private, max-age=60",
        framesSelf: content.kind === "frame",
        headers: renderedHeaders(through),
      },
    );
  },
);
