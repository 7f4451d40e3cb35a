/**
 * Memento (RFC 7089) on the read routes' own URLs: `/page/{title}` is its
 * own TimeGate (Accept-Datetime → 302 to the memento current then; without
 * it, the current state naming its TimeGate and TimeMaps, `Vary:
 * Accept-Datetime`), and `/page/{title}/{revid}` is a Memento
 * (Memento-Datetime and Link first/prev/next/last, read beside the revision
 * from the page's memento index, the small mutable `mementos` answer). The TimeGate's 302 is also the
 * Wayback-style `/web/{timestamp}/{title}`'s (workers/routes/memento/memento-routes.ts),
 * where the choice of memento is explained.
 *
 * @example
 * readRoutes.use("/page/*", withColo);
 * readRoutes.use("/page/:title", timeTravel);
 * readRoutes.use("/page/:title/:revid", timeTravel);
 */
import type { Context, MiddlewareHandler } from "hono";
import { errorMessage } from "../../src/lib/errors.ts";
import type { AppEnv } from "../app-env.ts";
import { settingsOf } from "../../src/config/settings.ts";
import { formatHttpDate, parseHttpDate } from "../../src/http/datetime.ts";
import { ProblemError } from "../../src/http/problem.ts";
import { revisionParam } from "../../src/http/queries.ts";
import { mementoLinkHeader, mementoUrls, pageLinks, timegateLinkHeader } from "../../src/memento/links.ts";
import { mementoInfoIn } from "../../src/memento/navigation.ts";
import type { MementoIndex, MementoInfo } from "../../src/memento/types.ts";
import type { OriginQuery } from "../../src/origin/answer.ts";
import { answerJson } from "../../src/origin/answer-body.ts";
import { MEMENTO_CACHE_CONTROL } from "../../src/origin/memento-answers.ts";
import { pageRef, type PageRef } from "../../src/page/page-ref.ts";
import { addVary } from "../../src/representation/vary.ts";
import { readThroughTiers, type ReadThrough } from "../../src/tiers/chain.ts";
import { respondAsIs, respondRedirect, type Asker } from "../../src/tiers/respond.ts";

/** The origin absolute links start with: PUBLIC_ORIGIN if set, else the request's own. */
export function baseOf(c: Context<AppEnv>): string {
  return settingsOf(c.env).publicOrigin ?? new URL(c.req.url).origin;
}

function read(c: Context<AppEnv>, query: OriginQuery, options?: { newerThan: number }): Promise<ReadThrough> {
  return readThroughTiers(c.env, c.executionCtx, c.get("colo"), query, options);
}

/** An answer as it came through the tiers, for what is sent as is: TimeMaps and problems (src/tiers/respond.ts). */
const send = (c: Context<AppEnv>, through: ReadThrough): Response => respondAsIs(askerOf(c), through);

const askerOf = (c: Context<AppEnv>): Asker => ({ request: c.req.raw, requestId: c.get("requestId") });

const infoOf = (through: ReadThrough): MementoInfo => answerJson("memento", through.entry);

/** A 302 to the memento current at the time asked, linking what a TimeGate's answer links (§4.1.1). */
export async function redirectToMemento(
  c: Context<AppEnv>,
  ref: PageRef,
  at: number,
  vary: boolean,
): Promise<Response> {
  const through = await read(c, { kind: "memento", ref, which: { at } });
  if (through.entry.status !== 200) return send(c, through);
  const info = infoOf(through);
  const urls = mementoUrls(baseOf(c), ref.key);
  const res = respondRedirect(askerOf(c), through, urls.memento(info.self.id), {
    link: timegateLinkHeader(urls, info),
    "cache-control": MEMENTO_CACHE_CONTROL,
  });
  if (vary) addVary(res.headers, "Accept-Datetime");
  return res;
}

/**
 * The page a `/page/{title}…` path names, if its title segment is already canonical (otherwise the read route redirects
 * first).
 */
function canonicalRef(raw: string | undefined): PageRef | null {
  if (!raw) return null;
  try {
    const ref = pageRef(raw);
    return ref.key === raw ? ref : null;
  } catch {
    return null;
  }
}

const SERVED = new Set([200, 206, 304]);

/**
 * `/page/{title}`: the TimeGate with Accept-Datetime; without it, the current state, which names its TimeGate and
 * TimeMaps.
 */
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

const indexOf = (through: ReadThrough): MementoIndex => answerJson("mementos", through.entry);

/**
 * Revision `id`'s place in time: from the page's memento index, one answer
 * per page that a write changes once. When the index this colo holds is older
 * than the revision, and the revision is there (`exists`: its read answered),
 * a newer index, from the nearest tier that holds one. Asked for by id when
 * the page is too long to have an index, or the revision is in none. Null when
 * there is none to give (a 404 or 410 page, a failure).
 */
async function placeInTime(
  c: Context<AppEnv>,
  ref: PageRef,
  id: number,
  exists: Promise<boolean>,
): Promise<MementoInfo | null> {
  const index = await read(c, { kind: "mementos", ref });
  if (index.entry.status !== 200) return null;
  const held = indexOf(index);
  const found = mementoInfoIn(held, id);
  if (found) return found;
  if (held.mementos !== null && (await exists)) {
    const newer = await read(c, { kind: "mementos", ref }, { newerThan: index.entry.version });
    const inNewer = newer.entry.status === 200 ? mementoInfoIn(indexOf(newer), id) : undefined;
    if (inNewer) return inNewer;
  }
  const one = await read(c, { kind: "memento", ref, which: { id } });
  return one.entry.status === 200 ? infoOf(one) : null;
}

/**
 * `/page/{title}/{revid}`: the revision as a Memento, its place in time read
 * beside it. A suppressed one's 410 keeps its datetime and links (its id and
 * time are public, as in the history), so a client can go on from it.
 */
async function mementoHeaders(c: Context<AppEnv>, next: () => Promise<void>, ref: PageRef, id: number): Promise<void> {
  let answered!: (exists: boolean) => void;
  const exists = new Promise<boolean>((resolve) => (answered = resolve));
  const info = placeInTime(c, ref, id, exists).catch((err: unknown) => {
    console.warn("memento links unavailable", ref.key, id, errorMessage(err));
    return null;
  });
  try {
    await next();
  } finally {
    // A revision that is there, shown or suppressed, is in any index as new as itself.
    answered(SERVED.has(c.res.status) || c.res.status === 410);
  }
  const memento = await info;
  if (!memento) return;
  if (!SERVED.has(c.res.status) && !(c.res.status === 410 && memento.suppressed)) return;
  c.res.headers.set("memento-datetime", formatHttpDate(memento.self.ts));
  c.res.headers.append("link", mementoLinkHeader(mementoUrls(baseOf(c), ref.key), memento));
}

/**
 * The read routes' Memento hook, registered on `/page/:title` and
 * `/page/:title/:revid` after `withColo` (workers/routes/read/read-routes.ts): the
 * TimeGate on a page's URL, Memento headers on a revision's. A title that is
 * not canonical yet, a revid that is not a revision id (`history`), and
 * every method but GET and HEAD pass through to the route.
 */
export const timeTravel: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
  // Hono's route param, decoded; a subpage's %2F stays inside the one segment.
  const ref = canonicalRef(c.req.param("title"));
  if (!ref) return next();
  const revid = c.req.param("revid");
  if (revid === undefined) return timeGate(c, next, ref);
  const id = revisionParam.shape.revid.safeParse(revid);
  return id.success ? mementoHeaders(c, next, ref, id.data) : next();
};
