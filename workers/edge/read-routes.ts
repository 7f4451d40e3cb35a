/**
 * Public read routes.
 *
 *   GET /page/{title}                 latest revision
 *   GET /page/{title}?at={time}       revision current at that time (ISO-8601 or YYYYMMDDHHMMSS)
 *   GET /page/{title}/{revid}         one revision
 *   GET /page/{title}/history         newest first; ?limit=1..500, ?older= / ?newer= cursors
 */
import { Hono, type Context } from "hono";
import { ProblemError } from "../../src/http/problem.ts";
import { storeProblem } from "../../src/http/store-problem.ts";
import { parseAt } from "../../src/http/timestamps.ts";
import { LIMITS } from "../../src/limits.ts";
import { CONTENT_MODELS, isContentModel } from "../../src/page/content-model.ts";
import { pageRef, pageStore, type PageRef } from "../../src/page/page-ref.ts";
import type { RevisionSelector } from "../../src/page/types.ts";
import { PageOrigin, type RevisionRead } from "../../src/origin/page-origin.ts";

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

function revisionResponse(c: Context<Env_>, read: RevisionRead, immutable: boolean): Response {
  const etag = `"${read.revision.sha256}"`;
  const contentType = isContentModel(read.revision.model) ? CONTENT_MODELS[read.revision.model].contentType : "application/octet-stream";
  const headers = new Headers({
    "content-type": contentType,
    etag,
    "last-modified": new Date(read.revision.timestamp).toUTCString(),
    "x-revision-id": String(read.revision.id),
    "cache-control": immutable ? "public, max-age=31536000, immutable" : "public, max-age=60",
    "content-length": String(read.body.byteLength),
    // What the read cost the origin; benchmarks and operators read it, browsers ignore it.
    "x-read-cost": `blob-reads=${read.stats.blobReads}; decodes=${read.stats.decodes}; decoded-bytes=${read.stats.decodedBytes}`,
  });
  if ((c.req.header("if-none-match") ?? "").split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) {
    headers.delete("content-length");
    return new Response(null, { status: 304, headers });
  }
  const body = read.body;
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= body.byteLength) return controller.close();
      controller.enqueue(body.subarray(offset, offset + STREAM_CHUNK));
      offset += STREAM_CHUNK;
    },
  });
  return new Response(c.req.method === "HEAD" ? null : stream, { headers });
}

readRoutes.get("/page/:title", async (c) => {
  const ref = canonical(c, c.req.param("title"));
  if (ref instanceof Response) return ref;
  const at = c.req.query("at");
  let selector: RevisionSelector = { kind: "latest" };
  if (at !== undefined) {
    const epochSeconds = parseAt(at);
    if (epochSeconds === null) {
      throw new ProblemError({ status: 400, code: "invalid_timestamp", title: "Bad Request", detail: `at=${at} is neither ISO-8601 nor YYYYMMDDHHMMSS`, extensions: { page: ref.title } });
    }
    selector = { kind: "at", epochSeconds };
  }
  return revisionResponse(c, await new PageOrigin(c.env).read(ref, selector), false);
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
  if (cursor !== undefined && !/^[ab]\d+$/.test(cursor)) {
    throw new ProblemError({ status: 400, code: "invalid_cursor", title: "Bad Request", detail: `cursor ${cursor} is not one this API issued` });
  }
  const seq = cursor === undefined ? undefined : Number(cursor.slice(1));
  const page = await pageStore(c.env, ref).history(older !== undefined ? { before: seq } : newer !== undefined ? { after: seq } : {}, limit);
  if ("ok" in page) throw storeProblem(page, ref.title);
  const base = new URL(c.req.url);
  const link = (key: "older" | "newer", value: string | null) => {
    if (value === null) return null;
    const u = new URL(`/page/${encodeURIComponent(ref.key)}/history`, base);
    u.searchParams.set("limit", String(limit));
    u.searchParams.set(key, value);
    return u.toString();
  };
  const links = { older: link("older", page.older), newer: link("newer", page.newer) };
  const linkHeader = [links.older && `<${links.older}>; rel="next"`, links.newer && `<${links.newer}>; rel="prev"`].filter(Boolean).join(", ");
  if (linkHeader) c.header("link", linkHeader);
  c.header("cache-control", "public, max-age=60");
  return c.json({ page: page.title, total: page.total, revisions: page.revisions, links });
});

readRoutes.get("/page/:title/:revid", async (c) => {
  const ref = canonical(c, c.req.param("title"));
  if (ref instanceof Response) return ref;
  const revid = c.req.param("revid");
  if (!/^[1-9]\d{0,15}$/.test(revid)) {
    throw new ProblemError({ status: 400, code: "invalid_revision_id", title: "Bad Request", detail: `${revid} is not a revision id`, extensions: { page: ref.title } });
  }
  return revisionResponse(c, await new PageOrigin(c.env).read(ref, { kind: "id", id: Number(revid) }), true);
});
