/**
 * Public read routes. Each validates its input, builds the query, and reads
 * through the tiers (src/tiers/chain.ts: lower → regional → upper → origin).
 *
 *   GET /page/{title}                 latest revision
 *   GET /page/{title}?at={time}       revision current at that time (ISO-8601 or YYYYMMDDHHMMSS)
 *   GET /page/{title}/{revid}         one revision
 *   GET /page/{title}/history         newest first; ?limit=1..500, ?older= / ?newer= cursors
 *
 * Representations (src/representation/): identity, br (a revision's
 * made once and kept in the tiers), gzip, and for a client holding another
 * revision of the page, dcb against it (RFC 9842); each with its own ETag,
 * preconditions, Range and HEAD.
 *
 * Debug headers: `x-palimpsest-tier` (which tier answered), `age` (seconds
 * since the origin produced the answer), `x-palimpsest-colo`.
 */
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../app-env.ts";
import { atQuery, historyQuery, revisionParam } from "../../../src/http/queries.ts";
import { URL_FORMS } from "../../../src/http/url-forms.ts";
import { dcbRefused, rememberDcbRefusal } from "../../../src/representation/dcb-refusals.ts";
import { offeredDictionary } from "../../../src/representation/dictionary.ts";
import { validated } from "../../middleware/validated.ts";
import type { OriginQuery } from "../../../src/origin/answer.ts";
import { answerJson } from "../../../src/origin/answer-body.ts";
import { titleSegment, type PageRef } from "../../../src/page/page-ref.ts";
import { withColo } from "../../middleware/with-colo.ts";
import { readThroughTiers, type ReadThrough } from "../../../src/tiers/chain.ts";
import { respond, respondDelta, type Asker } from "../../../src/tiers/respond.ts";
import { canonicalTitle } from "../../middleware/canonical-title.ts";
import { timeTravel } from "../../middleware/time-travel.ts";

/** Read routes also carry the canonical page they read. */
type ReadEnv = AppEnv & { Variables: { ref: PageRef } };

export const readRoutes = new Hono<ReadEnv>();

const canonical = (rest?: (c: Context<ReadEnv>) => string) => canonicalTitle<ReadEnv>(rest);

function read(c: Context<ReadEnv>, query: OriginQuery): Promise<ReadThrough> {
  return readThroughTiers(c.env, c.executionCtx, c.get("colo"), query);
}

/** Who asked, for the one response builder (src/tiers/respond.ts). */
const asker = (c: Context<ReadEnv>): Asker => ({ request: c.req.raw, requestId: c.get("requestId") });

readRoutes.use("/page/*", withColo);
// Memento (RFC 7089): the TimeGate on /page/{title}, Memento-Datetime and Link on revisions.
readRoutes.use(URL_FORMS.latest, timeTravel);
readRoutes.use(URL_FORMS.revision, timeTravel);

readRoutes.get(
  URL_FORMS.latest,
  canonical(),
  validated("query", atQuery, "at", { at: { status: 400, code: "invalid_timestamp" } }),
  async (c) => {
    const { at } = c.req.valid("query");
    const ref = c.get("ref");
    const latest = await read(c, { kind: "latest", ref, at });
    // Most readers fetch the latest: a client holding an earlier revision gets it as a delta too, under the
    // latest's own headers (its Cache-Control), the body being the revision's dcb against what it holds.
    const dictionary = offeredDictionary(c.req.raw);
    const id = latest.entry.revisionId;
    if (dictionary && latest.entry.status === 200 && id !== undefined && !dcbRefused(ref.key, id, dictionary)) {
      const delta = await read(c, { kind: "delta", ref, id, dictionary });
      const dcb = delta.entry.status === 200 ? delta.entry.encoded?.dcb : undefined;
      if (dcb) return respondDelta(asker(c), latest, dictionary, dcb);
      if (delta.entry.status === 404) rememberDcbRefusal(ref.key, id, dictionary);
    }
    return respond(asker(c), latest);
  },
);

readRoutes.get(
  URL_FORMS.history,
  canonical(() => "/history"),
  validated("query", historyQuery, "history", {
    limit: { status: 400, code: "invalid_limit", limit: "history.maxPageSize" },
    older: { status: 400, code: "invalid_cursor" },
    newer: { status: 400, code: "invalid_cursor" },
  }),
  async (c) => {
    const ref = c.get("ref");
    const { limit, older, newer } = c.req.valid("query");
    const through = await read(c, { kind: "history", ref, limit, cursor: older ?? newer });
    if (through.entry.status !== 200) return respond(asker(c), through);
    // Links are absolute, so they are built here rather than stored in the tiers.
    const page = answerJson("history", through.entry);
    const link = (key: "older" | "newer", value: string | null) => {
      if (value === null) return null;
      const u = new URL(`/page/${titleSegment(ref.key)}/history`, c.req.url);
      u.searchParams.set("limit", String(limit));
      u.searchParams.set(key, value);
      return u.toString();
    };
    const { cursors, ...rest } = page;
    const links = { older: link("older", cursors.older), newer: link("newer", cursors.newer) };
    const linkHeader = [links.older && `<${links.older}>; rel="next"`, links.newer && `<${links.newer}>; rel="prev"`]
      .filter(Boolean)
      .join(", ");
    const response = await respond(asker(c), through, new TextEncoder().encode(JSON.stringify({ ...rest, links })));
    if (linkHeader) response.headers.set("link", linkHeader);
    return response;
  },
);

readRoutes.get(
  URL_FORMS.revision,
  canonical((c) => `/${encodeURIComponent(c.req.param("revid")!)}`),
  validated("param", revisionParam, "revision", { revid: { status: 400, code: "invalid_revision_id" } }),
  async (c) => {
    const { revid } = c.req.valid("param");
    const ref = c.get("ref");
    // A client holding another revision of this page gets the difference from it; an unknown dictionary, plain br.
    // Only against a revision a browser would hold (src/page-store/dictionary-window.ts); a refused pair is remembered.
    const dictionary = offeredDictionary(c.req.raw);
    if (dictionary && !dcbRefused(ref.key, revid, dictionary)) {
      const delta = await read(c, { kind: "delta", ref, id: revid, dictionary });
      const dcb = delta.entry.status === 200 ? delta.entry.encoded?.dcb : undefined;
      if (dcb) return respondDelta(asker(c), delta, dictionary, dcb);
      if (delta.entry.status === 404) rememberDcbRefusal(ref.key, revid, dictionary);
    }
    return respond(asker(c), await read(c, { kind: "revision", ref, id: revid }));
  },
);
