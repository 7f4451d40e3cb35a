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
import { pageRef, type PageRef } from "../../src/page/page-ref.ts";
import { historyKey, latestKey, revisionKey, type CacheKey } from "../../src/tiers/cache-key.ts";
import type { OriginQuery } from "../../src/tiers/entry.ts";
import { readThroughTiers, type ReadThrough } from "../../src/tiers/read-through.ts";

type Env_ = { Bindings: Env };
export const readRoutes = new Hono<Env_>();

const STREAM_CHUNK = 64 * 1024;

/** Redirects non-canonical titles (bip_0340 → Bip_0340) so each page has one URL. */
function canonical(c: Context<Env_>, raw: string): PageRef | Response {
  const ref = pageRef(raw);
  if (ref.key !== raw) {
    const url = new URL(c.req.url);
    url.pathname = url.pathname.replace(`/page/${encodeURIComponent(raw)}`, `/page/${encodeURIComponent(ref.key)}`);
    if (url.pathname !== new URL(c.req.url).pathname) return c.redirect(url.toString(), 301);
  }
  return ref;
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
  const etag = headers.get("etag");
  if (entry.status === 200 && etag && (c.req.header("if-none-match") ?? "").split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) {
    return new Response(null, { status: 304, headers });
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
  const ref = canonical(c, c.req.param("title"));
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
    const u = new URL(`/page/${encodeURIComponent(ref.key)}/history`, c.req.url);
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
  const ref = canonical(c, c.req.param("title"));
  if (ref instanceof Response) return ref;
  const revid = c.req.param("revid");
  if (!/^[1-9]\d{0,15}$/.test(revid)) {
    throw new ProblemError({ status: 400, code: "invalid_revision_id", title: "Bad Request", detail: `${revid} is not a revision id`, extensions: { page: ref.title } });
  }
  const id = Number(revid);
  return respond(c, await read(c, revisionKey(ref.key, id), { kind: "revision", page: ref.key, id }));
});
