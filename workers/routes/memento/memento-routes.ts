/**
 * Memento (RFC 7089) for the archive's pages. The archive follows §4.1.1,
 * Pattern 1.1: URI-R = URI-G with 302-style negotiation. `/page/{title}`
 * is the original resource (its current state, as before) and its own
 * TimeGate; each revision `/page/{title}/{revid}` is a Memento.
 *
 *   GET /page/{title}  + Accept-Datetime   302 to the memento current then (TimeGate)
 *   GET /page/{title}/{revid}              Memento-Datetime and Link (first/prev/next/last)
 *   GET /timemap/link/{title}              TimeMap, application/link-format (?after= / ?before= pages)
 *   GET /timemap/json/{title}              the same as JSON (mementoweb.org's JSON TimeMap)
 *   GET /web/{timestamp}/{title}           Wayback-style: 302 to the memento current then
 *
 * "Current then" is the latest visible revision at or before the requested
 * time: what a reader of the wiki saw at that instant. RFC 7089 asks a
 * TimeGate for the "best" memento and leaves the choice to the server; a
 * revision after the time did not exist yet, so it is never chosen, except
 * where none visible existed yet (before the first revision), where the
 * first visible one is the closest there is (a 404 would leave a client
 * with nothing to navigate from). A suppressed revision is never chosen,
 * nor linked as first/prev/next/last: its URL answers 410, which still
 * names its datetime, the original, the TimeGate and the TimeMaps.
 * `/page/{title}?at=` chooses the same way (src/page-store/mementos.ts)
 * and answers as a memento: Memento-Datetime, Content-Location, Link.
 *
 * A memento's place in time comes from a small mutable answer (the
 * `memento` query, cached through the tiers like history), read beside
 * the revision itself: the revision's body stays immutable while its
 * `next memento` and `last memento` change with every write, and a write's
 * purge of the page's mutable keys refreshes them.
 *
 * The TimeGate on `/page/{title}` and the Memento headers on revisions are
 * the read routes' middleware, workers/middleware/time-travel.ts.
 *
 * @example
 * # 302, Location: …/page/Vellum/{id}
 * curl -sI -H 'Accept-Datetime: Wed, 01 Jan 2020 00:00:05 GMT' localhost:8787/page/Vellum
 * curl -s localhost:8787/timemap/link/Vellum
 */
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../app-env.ts";
import { timemapParam, timemapQuery, waybackParam } from "../../../src/http/queries.ts";
import { URL_FORMS } from "../../../src/http/url-forms.ts";
import { validated } from "../../middleware/validated.ts";
import { mementoUrls } from "../../../src/memento/links.ts";
import type { OriginQuery } from "../../../src/origin/answer.ts";
import { pageRef } from "../../../src/page/page-ref.ts";
import { baseOf, redirectToMemento } from "../../middleware/time-travel.ts";
import { withColo } from "../../middleware/with-colo.ts";
import { readThroughTiers, type ReadThrough } from "../../../src/tiers/chain.ts";
import { respondAsIs } from "../../../src/tiers/respond.ts";

function read(c: Context<AppEnv>, query: OriginQuery): Promise<ReadThrough> {
  return readThroughTiers(c.env, c.executionCtx, c.get("colo"), query);
}

/** An answer as it came through the tiers, for what is sent as is: TimeMaps and problems (src/tiers/respond.ts). */
const send = (c: Context<AppEnv>, through: ReadThrough): Response =>
  respondAsIs({ request: c.req.raw, requestId: c.get("requestId") }, through);

export const mementoRoutes = new Hono<AppEnv>();

mementoRoutes.use("/timemap/*", withColo);
mementoRoutes.use("/web/*", withColo);

mementoRoutes.get(
  URL_FORMS.timemap,
  validated("param", timemapParam, "timemap", { format: { status: 404, code: "not_found" } }),
  validated("query", timemapQuery, "timemap", {
    after: { status: 400, code: "invalid_cursor" },
    before: { status: 400, code: "invalid_cursor" },
  }),
  async (c) => {
    const { format, title } = c.req.valid("param");
    const cursor = c.req.valid("query");
    const ref = pageRef(title);
    if (ref.key !== title) {
      const url = new URL(c.req.url);
      url.pathname = mementoUrls("", ref.key).timemap(format).split("?", 1)[0]!;
      return c.redirect(url.toString(), 301);
    }
    const through = await read(c, { kind: "timemap", ref, format, base: baseOf(c), cursor });
    return send(c, through);
  },
);

mementoRoutes.get(
  URL_FORMS.wayback,
  validated("param", waybackParam, "wayback", { timestamp: { status: 400, code: "invalid_timestamp" } }),
  async (c) => {
    const { timestamp, title } = c.req.valid("param");
    return redirectToMemento(c, pageRef(title), timestamp, false);
  },
);
