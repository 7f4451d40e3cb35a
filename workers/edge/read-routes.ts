/**
 * Public read routes. Each validates its input, names the cache key, and
 * reads through the tiers (lower → regional → upper → origin).
 *
 *   GET /page/{title}                 latest revision
 *   GET /page/{title}?at={time}       revision current at that time (ISO-8601 or YYYYMMDDHHMMSS)
 *   GET /page/{title}/{revid}         one revision
 *   GET /page/{title}/history         newest first; ?limit=1..500, ?older= / ?newer= cursors
 *
 * Debug headers: `x-palimpsest-tier` (which tier answered), `age` (seconds
 * since the origin produced the answer), `x-palimpsest-colo`.
 */
import { Hono, type Context } from "hono";
import { ProblemError } from "../../src/http/problem.ts";
import { parseAt } from "../../src/http/timestamps.ts";
import { LIMITS } from "../../src/limits.ts";
import { pageRef, titleSegment, type PageRef } from "../../src/page/page-ref.ts";
import { historyKey, latestKey, revisionKey, type CacheKey } from "../../src/tiers/cache-key.ts";
import type { OriginQuery } from "../../src/tiers/entry.ts";
import { readThroughTiers, type ReadThrough } from "../../src/tiers/read-through.ts";

type Env_ = { Bindings: Env; Variables: { requestId: string } };
export const readRoutes = new Hono<Env_>();

const STREAM_CHUNK = 64 * 1024;

/**
 * Redirects non-canonical titles (bip_0340 → Bip_0340, a decomposed é → é)
 * so each page has one URL; `rest` is what follows the title in the path.
 */
function canonical(c: Context<Env_>, raw: string, rest = ""): PageRef | Response {
  const ref = pageRef(raw);
  if (ref.key !== raw) {
    const url = new URL(c.req.url);
    url.pathname = `/page/${titleSegment(ref.key)}${rest}`;
    return c.redirect(url.toString(), 301);
  }
  return ref;
}

/** RFC 9110 §13.1.2: `*` matches any current representation; otherwise a weak comparison of the listed tags. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

function read(c: Context<Env_>, key: CacheKey, query: OriginQuery): Promise<ReadThrough> {
  return readThroughTiers(c.req.raw, c.env, c.executionCtx, key, query);
}

function respond(c: Context<Env_>, through: ReadThrough, body: Uint8Array = through.entry.body): Response {
  const { entry } = through;
  const headers = new Headers(entry.headers);
  headers.set("x-palimpsest-tier", through.servedBy);
  headers.set("x-palimpsest-colo", through.colo);
  headers.set("age", String(Math.max(0, Math.floor((Date.now() - entry.storedAt) / 1000))));
  headers.set("x-request-id", c.get("requestId"));
  const etag = headers.get("etag");
  if (entry.status === 200 && etag && noneMatch(c.req.header("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers });
  }
  if (entry.status >= 500) {
    // The origin's problem, plus this request's id for the report; the details stay in the log.
    const problem = JSON.parse(new TextDecoder().decode(body)) as Record<string, unknown>;
    console.error("read failed", { requestId: c.get("requestId"), path: c.req.path, code: problem.code });
    body = new TextEncoder().encode(JSON.stringify({ ...problem, requestId: c.get("requestId") }));
  }
  headers.set("content-length", String(body.byteLength));
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= body.byteLength) return controller.close();
      controller.enqueue(body.subarray(offset, offset + STREAM_CHUNK));
      offset += STREAM_CHUNK;
    },
  });
  return new Response(c.req.method === "HEAD" ? null : stream, { status: entry.status, headers });
}

readRoutes.get("/page/:title", async (c) => {
  const ref = canonical(c, c.req.param("title"));
  if (ref instanceof Response) return ref;
  const atText = c.req.query("at");
  let at: number | undefined;
  if (atText !== undefined) {
    const parsed = parseAt(atText);
    if (parsed === null) {
      throw new ProblemError({ status: 400, code: "invalid_timestamp", title: "Bad Request", detail: `at=${atText} is neither ISO-8601 nor YYYYMMDDHHMMSS`, extensions: { page: ref.title } });
    }
    at = parsed;
  }
  return respond(c, await read(c, latestKey(ref.key, at), { kind: "latest", page: ref.key, at }));
});

readRoutes.get("/page/:title/history", async (c) => {
  const ref = canonical(c, c.req.param("title"), "/history");
  if (ref instanceof Response) return ref;
  const limitText = c.req.query("limit") ?? String(LIMITS.history.defaultPageSize);
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > LIMITS.history.maxPageSize) {
    throw new ProblemError({ status: 400, code: "invalid_limit", title: "Bad Request", detail: `limit=${limitText}; it must be 1..${LIMITS.history.maxPageSize}`, limit: "history.maxPageSize" });
  }
  const older = c.req.query("older");
  const newer = c.req.query("newer");
  const cursor = older ?? newer;
  if (cursor !== undefined && (!/^[ab]\d+$/.test(cursor) || (older !== undefined && cursor[0] !== "b") || (newer !== undefined && cursor[0] !== "a"))) {
    throw new ProblemError({ status: 400, code: "invalid_cursor", title: "Bad Request", detail: `cursor ${cursor} is not one this API issued` });
  }
  const through = await read(c, historyKey(ref.key, limit, cursor), { kind: "history", page: ref.key, limit, cursor });
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
  const response = respond(c, through, new TextEncoder().encode(JSON.stringify({ ...rest, links })));
  if (linkHeader) response.headers.set("link", linkHeader);
  return response;
});

readRoutes.get("/page/:title/:revid", async (c) => {
  const revid = c.req.param("revid");
  const ref = canonical(c, c.req.param("title"), `/${encodeURIComponent(revid)}`);
  if (ref instanceof Response) return ref;
  if (!/^[1-9]\d*$/.test(revid)) {
    throw new ProblemError({ status: 400, code: "invalid_revision_id", title: "Bad Request", detail: `${revid.slice(0, 40)} is not a revision id`, extensions: { page: ref.title } });
  }
  if (revid.length > 16 || BigInt(revid) > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ProblemError({ status: 422, code: "revision_id_out_of_range", title: "Unprocessable Content", detail: `revision ids go up to ${Number.MAX_SAFE_INTEGER}`, extensions: { page: ref.title } });
  }
  const id = Number(revid);
  return respond(c, await read(c, revisionKey(ref.key, id), { kind: "revision", page: ref.key, id }));
});
