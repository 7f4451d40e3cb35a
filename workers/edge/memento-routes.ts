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
 * @example
 * curl -sI -H 'Accept-Datetime: Wed, 01 Jan 2020 00:00:05 GMT' localhost:8787/page/Vellum   # 302, Location: …/page/Vellum/{id}
 * curl -s localhost:8787/timemap/link/Vellum
 */
import { Hono, type Context, type MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { settingsOf } from "../../src/config/settings.ts";
import { ProblemError } from "../../src/http/problem.ts";
import { timemapParam, timemapQuery, waybackParam } from "../../src/http/queries.ts";
import { addVary } from "../../src/representation/vary.ts";
import { validated } from "../../src/http/validate.ts";
import { formatHttpDate, parseHttpDate } from "../../src/http/datetime.ts";
import { mementoLinkHeader, mementoUrls, pageLinks, timegateLinkHeader } from "../../src/memento/links.ts";
import { MEMENTO_CACHE_CONTROL } from "../../src/origin/memento-answers.ts";
import type { MementoInfo } from "../../src/memento/types.ts";
import type { OriginQuery } from "../../src/origin/answer.ts";
import { pageRef, type PageRef } from "../../src/page/page-ref.ts";
import { withColo } from "../../src/config/colo.ts";
import { readThroughTiers, type ReadThrough } from "../../src/tiers/chain.ts";
import { respondAsIs } from "../../src/tiers/respond.ts";

/** The origin absolute links start with: PUBLIC_ORIGIN if set, else the request's own. */
function baseOf(c: Context<AppEnv>): string {
  return settingsOf(c.env).publicOrigin ?? new URL(c.req.url).origin;
}

function read(c: Context<AppEnv>, query: OriginQuery): Promise<ReadThrough> {
  return readThroughTiers(c.env, c.executionCtx, c.get("colo"), query);
}

/** An answer as it came through the tiers, for what is sent as is: TimeMaps and problems (src/tiers/respond.ts). */
const send = (c: Context<AppEnv>, through: ReadThrough): Response => respondAsIs({ request: c.req.raw, requestId: c.get("requestId") }, through);

const infoOf = (through: ReadThrough): MementoInfo => JSON.parse(new TextDecoder().decode(through.entry.body)) as MementoInfo;

/** A 302 to the memento current at the time asked, linking what a TimeGate's answer links (§4.1.1). */
async function redirectToMemento(c: Context<AppEnv>, ref: PageRef, at: number, vary: boolean): Promise<Response> {
  const through = await read(c, { kind: "memento", ref, which: { at } });
  if (through.entry.status !== 200) return send(c, through);
  const info = infoOf(through);
  const urls = mementoUrls(baseOf(c), ref.key);
  const headers = new Headers({
    location: urls.memento(info.self.id),
    link: timegateLinkHeader(urls, info),
    "cache-control": MEMENTO_CACHE_CONTROL,
    "content-length": "0",
    "x-palimpsest-tier": through.servedBy,
  });
  if (vary) addVary(headers, "Accept-Datetime");
  return new Response(null, { status: 302, headers });
}

/** The page a `/page/{title}…` path names, if its title segment is already canonical (otherwise the read route redirects first). */
function canonicalRef(segment: string): PageRef | null {
  try {
    const raw = decodeURIComponent(segment);
    const ref = pageRef(raw);
    return ref.key === raw ? ref : null;
  } catch {
    return null;
  }
}

const SERVED = new Set([200, 206, 304]);

/** `/page/{title}`: the TimeGate with Accept-Datetime; without it, the current state, which names its TimeGate and TimeMaps. */
async function timeGate(c: Context<AppEnv>, next: () => Promise<void>, ref: PageRef): Promise<Response | void> {
  // `?at=` names its time in the URL: no negotiation there. Its answer is a memento (Memento-Datetime from the origin).
  if (c.req.query("at") !== undefined) {
    await next();
    if (SERVED.has(c.res.status)) c.res.headers.append("link", pageLinks(mementoUrls(baseOf(c), ref.key)).join(", "));
    return;
  }
  const asked = c.req.header("accept-datetime");
  if (asked !== undefined) {
    const at = parseHttpDate(asked);
    if (at === null) {
      throw new ProblemError({
        status: 400,
        code: "invalid_accept_datetime",
        title: "Bad Request",
        detail: `Accept-Datetime must be an RFC 1123 date such as "Wed, 01 Jan 2020 00:00:00 GMT" (RFC 7089 §2.1.1); got "${asked.slice(0, 64)}"`,
        extensions: { page: ref.title },
      });
    }
    return redirectToMemento(c, ref, at, true);
  }
  await next();
  if (!SERVED.has(c.res.status)) return;
  addVary(c.res.headers, "Accept-Datetime");
  c.res.headers.append("link", pageLinks(mementoUrls(baseOf(c), ref.key)).join(", "));
}

/**
 * `/page/{title}/{revid}`: the revision as a Memento, its place in time read
 * beside it. A suppressed one's 410 keeps its datetime and links (its id and
 * time are public, as in the history), so a client can go on from it.
 */
async function mementoHeaders(c: Context<AppEnv>, next: () => Promise<void>, ref: PageRef, id: number): Promise<void> {
  const info = read(c, { kind: "memento", ref, which: { id } }).catch((err: unknown) => {
    console.warn("memento links unavailable", ref.key, id, (err as Error)?.message ?? err);
    return null;
  });
  await next();
  const through = await info;
  if (!through || through.entry.status !== 200) return;
  const memento = infoOf(through);
  if (!SERVED.has(c.res.status) && !(c.res.status === 410 && memento.suppressed)) return;
  c.res.headers.set("memento-datetime", formatHttpDate(memento.self.ts));
  c.res.headers.append("link", mementoLinkHeader(mementoUrls(baseOf(c), ref.key), memento));
}

/**
 * The read routes' Memento hook (registered on `/page/*` in
 * workers/edge/read-routes.ts, after `withColo`): the TimeGate on a page's
 * URL, Memento headers on a revision's. Everything else passes through.
 */
export const timeTravel: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
  // Hono's path keeps %2F escaped, so a subpage's title stays one segment.
  const parts = c.req.path.split("/");
  const ref = parts.length === 3 || parts.length === 4 ? canonicalRef(parts[2]!) : null;
  if (!ref) return next();
  if (parts.length === 3) return timeGate(c, next, ref);
  if (/^[1-9]\d{0,15}$/.test(parts[3]!) && Number(parts[3]) <= Number.MAX_SAFE_INTEGER) return mementoHeaders(c, next, ref, Number(parts[3]));
  return next();
};

export const mementoRoutes = new Hono<AppEnv>();

mementoRoutes.use("/timemap/*", withColo);
mementoRoutes.use("/web/*", withColo);

mementoRoutes.get(
  "/timemap/:format/:title",
  validated("param", timemapParam, "timemap", { format: { status: 404, code: "not_found" } }),
  validated("query", timemapQuery, "timemap", { after: { status: 400, code: "invalid_cursor" }, before: { status: 400, code: "invalid_cursor" } }),
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

mementoRoutes.get("/web/:timestamp/:title", validated("param", waybackParam, "wayback", { timestamp: { status: 400, code: "invalid_timestamp" } }), async (c) => {
  const { timestamp, title } = c.req.valid("param");
  return redirectToMemento(c, pageRef(title), timestamp, false);
});
