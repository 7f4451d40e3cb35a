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
import type { AppEnv } from "../app-env.ts";
import { atQuery, historyQuery, revisionParam } from "../../src/http/queries.ts";
import { dcbRefused, rememberDcbRefusal } from "../../src/representation/dcb-refusals.ts";
import { offeredDictionary, useAsDictionary } from "../../src/representation/dictionary.ts";
import { isCompressible } from "../../src/representation/compressible.ts";
import { codedEtag } from "../../src/representation/etag.ts";
import { serveCoded } from "../../src/representation/serve-coded.ts";
import { serveRepresentation } from "../../src/representation/serve.ts";
import { sandboxArchived } from "../../src/representation/archived-content.ts";
import { addVary } from "../../src/representation/vary.ts";
import { validated } from "../../src/http/validate.ts";
import { sha256Hex } from "../../src/lib/digests.ts";
import type { OriginQuery } from "../../src/origin/answer.ts";
import { titleSegment, type PageRef } from "../../src/page/page-ref.ts";
import { withColo } from "../../src/config/colo.ts";
import { readThroughTiers, type ReadThrough } from "../../src/tiers/chain.ts";
import { canonicalTitle } from "../../src/page/canonical-title.ts";
import { timeTravel } from "./memento-routes.ts";

/** Read routes also carry the canonical page they read. */
type ReadEnv = AppEnv & { Variables: { ref: PageRef } };

export const readRoutes = new Hono<ReadEnv>();

const canonical = (rest?: (c: Context<ReadEnv>) => string) => canonicalTitle<ReadEnv>(rest);

function read(c: Context<ReadEnv>, query: OriginQuery): Promise<ReadThrough> {
  return readThroughTiers(c.env, c.executionCtx, c.get("colo"), query);
}

/** The headers every read answer goes out with: the answer's own, and where it came from. */
function answerHeaders(c: Context<ReadEnv>, through: ReadThrough): Headers {
  const { entry } = through;
  const headers = new Headers(entry.headers);
  headers.set("x-palimpsest-tier", through.servedBy);
  headers.set("x-palimpsest-colo", through.colo);
  // No Age (RFC 9111 §4.2.3): every tier's copy is kept current by purges, so to a cache downstream the
  // answer is as fresh as if the origin had just confirmed it. Its time in a tier would make the latest,
  // history and TimeMaps look stale on arrival ("Age: 1302" beside "max-age=60").
  headers.set("x-request-id", c.get("requestId"));
  // Archived bytes never run as the archive (src/representation/archived-content.ts).
  sandboxArchived(headers);
  // Every text revision offers itself as the dictionary for the page's other revisions (RFC 9842): even
  // one too small to be worth compressing makes its successor's delta tiny.
  if (entry.status === 200 && entry.revisionId !== undefined && isCompressible(entry.headers["content-type"] ?? "")) {
    headers.set("use-as-dictionary", useAsDictionary(entry.page));
    addVary(headers, "Accept-Encoding", "Available-Dictionary");
  }
  return headers;
}

/**
 * The answer as a response: its coding negotiated (a revision's br body was
 * made once and comes from the tiers with it; anything else is coded now),
 * then preconditions, Range and HEAD against what is sent.
 */
async function respond(c: Context<ReadEnv>, through: ReadThrough, body: Uint8Array = through.entry.body): Promise<Response> {
  const { entry } = through;
  const headers = answerHeaders(c, through);
  if (entry.status >= 500) {
    // The origin's problem, plus this request's id for the report; the details stay in the log.
    const problem = JSON.parse(new TextDecoder().decode(body)) as Record<string, unknown>;
    console.error("read failed", { requestId: c.get("requestId"), path: c.req.path, code: problem.code });
    body = new TextEncoder().encode(JSON.stringify({ ...problem, requestId: c.get("requestId") }));
  }
  // A history page is rebuilt per request: its tag is its bytes' digest.
  if (entry.status === 200 && !headers.has("etag")) headers.set("etag", `"${await sha256Hex(body)}"`);
  // Stored coded bodies are the answer's own; a rebuilt body (history) has none.
  const stored = body === entry.body ? entry.encoded : undefined;
  return serveCoded(c.req.raw, { status: entry.status, headers, body }, stored);
}

/** A revision as a dcb delta against the dictionary the client holds: a representation per dictionary. */
function respondDelta(c: Context<ReadEnv>, through: ReadThrough, dictionary: string, dcb: Uint8Array): Response {
  const headers = answerHeaders(c, through);
  headers.set("content-encoding", "dcb");
  const etag = headers.get("etag");
  if (etag) headers.set("etag", codedEtag(etag, `dcb-${dictionary.slice(0, 16)}`));
  return serveRepresentation(c.req.raw, { status: 200, headers, body: dcb });
}

readRoutes.use("/page/*", withColo);
// Memento (RFC 7089): the TimeGate on /page/{title}, Memento-Datetime and Link on revisions.
readRoutes.use("/page/*", timeTravel);

readRoutes.get("/page/:title", canonical(), validated("query", atQuery, "at", { at: { status: 400, code: "invalid_timestamp" } }), async (c) => {
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
    if (dcb) return respondDelta(c, latest, dictionary, dcb);
    if (delta.entry.status === 404) rememberDcbRefusal(ref.key, id, dictionary);
  }
  return respond(c, latest);
});

readRoutes.get(
  "/page/:title/history",
  canonical(() => "/history"),
  validated("query", historyQuery, "history", { limit: { status: 400, code: "invalid_limit", limit: "history.maxPageSize" }, older: { status: 400, code: "invalid_cursor" }, newer: { status: 400, code: "invalid_cursor" } }),
  async (c) => {
    const ref = c.get("ref");
    const { limit, older, newer } = c.req.valid("query");
    const through = await read(c, { kind: "history", ref, limit, cursor: older ?? newer });
    if (through.entry.status !== 200) return respond(c, through);
    // Links are absolute, so they are built here rather than stored in the tiers.
    const page = JSON.parse(new TextDecoder().decode(through.entry.body)) as { cursors: { older: string | null; newer: string | null } } & Record<string, unknown>;
    const link = (key: "older" | "newer", value: string | null) => {
      if (value === null) return null;
      const u = new URL(`/page/${titleSegment(ref.key)}/history`, c.req.url);
      u.searchParams.set("limit", String(limit));
      u.searchParams.set(key, value);
      return u.toString();
    };
    const { cursors, ...rest } = page;
    const links = { older: link("older", cursors.older), newer: link("newer", cursors.newer) };
    const linkHeader = [links.older && `<${links.older}>; rel="next"`, links.newer && `<${links.newer}>; rel="prev"`].filter(Boolean).join(", ");
    const response = await respond(c, through, new TextEncoder().encode(JSON.stringify({ ...rest, links })));
    if (linkHeader) response.headers.set("link", linkHeader);
    return response;
  },
);

readRoutes.get(
  "/page/:title/:revid",
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
      if (dcb) return respondDelta(c, delta, dictionary, dcb);
      if (delta.entry.status === 404) rememberDcbRefusal(ref.key, revid, dictionary);
    }
    return respond(c, await read(c, { kind: "revision", ref, id: revid }));
  },
);
