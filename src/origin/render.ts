/**
 * Produces the origin's answer for a read as a cacheable {@link TierEntry}:
 * revision bodies with their caching headers, and history pages as JSON.
 * The tiers store exactly this; the edge turns it into a Response.
 */
import { ProblemError } from "../http/problem.ts";
import { storeProblem } from "../http/store-problem.ts";
import { CONTENT_MODELS, isContentModel } from "../page/content-model.ts";
import { pageExists } from "../page/directory.ts";
import { pageStore, type PageRef } from "../page/page-ref.ts";
import type { RevisionSelector } from "../page/types.ts";
import type { OriginQuery, TierEntry } from "../tiers/entry.ts";
import { topologyOf } from "../config/topology.ts";
import { PageOrigin } from "./page-origin.ts";

function refOf(page: string): PageRef {
  return { key: page, title: page.replace(/_/g, " ") };
}

function problemEntry(err: ProblemError, query: OriginQuery, version: number, negativeTtl?: number): TierEntry {
  const headers: Array<[string, string]> = [
    ["content-type", "application/problem+json"],
    ["cache-control", negativeTtl ? `public, max-age=${negativeTtl}` : "no-store"],
  ];
  const retryAfter = err.extensions.retryAfterSeconds;
  if (typeof retryAfter === "number") headers.push(["retry-after", String(retryAfter)]);
  return {
    status: err.status,
    headers,
    body: new TextEncoder().encode(JSON.stringify(err)),
    version,
    page: query.page,
    mutable: true,
    storedAt: Date.now(),
    ...(negativeTtl ? { negative: true } : {}),
  };
}

export async function renderOrigin(env: Env, query: OriginQuery, origin = new PageOrigin(env)): Promise<TierEntry> {
  const ref = refOf(query.page);
  // Titles nobody wrote are answered here, without waking (and so creating) their PageStore.
  if (!(await pageExists(env, query.page))) {
    const err = new ProblemError({ status: 404, code: "page_not_found", title: "Not Found", detail: "no such page in the archive", extensions: { page: ref.title } });
    return problemEntry(err, query, 0, topologyOf(env).notFoundSeconds);
  }
  try {
    if (query.kind === "history") return await renderHistory(env, ref, query);
    const selector: RevisionSelector =
      query.kind === "revision" ? { kind: "id", id: query.id } : query.at === undefined ? { kind: "latest" } : { kind: "at", epochSeconds: query.at };
    const read = await origin.read(ref, selector);
    const r = read.revision;
    const immutable = query.kind === "revision";
    return {
      status: 200,
      headers: [
        ["content-type", isContentModel(r.model) ? CONTENT_MODELS[r.model].contentType : "application/octet-stream"],
        ["etag", `"${r.sha256}"`],
        ["last-modified", new Date(r.timestamp).toUTCString()],
        ["x-revision-id", String(r.id)],
        ["cache-control", immutable ? "public, max-age=31536000, immutable" : "public, max-age=60"],
        ["x-read-cost", `blob-reads=${read.stats.blobReads}; decodes=${read.stats.decodes}; decoded-bytes=${read.stats.decodedBytes}`],
      ],
      body: read.body,
      version: read.version,
      page: query.page,
      mutable: !immutable,
      storedAt: Date.now(),
    };
  } catch (err) {
    // Problems travel as (uncached) entries: across Durable Object RPC an exception would lose its type.
    if (err instanceof ProblemError) return problemEntry(err, query, 0);
    throw err;
  }
}

async function renderHistory(env: Env, ref: PageRef, query: Extract<OriginQuery, { kind: "history" }>): Promise<TierEntry> {
  const cursor = query.cursor;
  const seq = cursor === undefined ? undefined : Number(cursor.slice(1));
  const page = await pageStore(env, ref).history(cursor?.startsWith("b") ? { before: seq } : cursor?.startsWith("a") ? { after: seq } : {}, query.limit);
  if ("ok" in page) throw storeProblem(page, ref.title);
  const body = { page: page.title, total: page.total, revisions: page.revisions, cursors: { older: page.older, newer: page.newer } };
  return {
    status: 200,
    headers: [["content-type", "application/json; charset=utf-8"], ["cache-control", "public, max-age=60"]],
    body: new TextEncoder().encode(JSON.stringify(body)),
    version: page.version,
    page: query.page,
    mutable: true,
    storedAt: Date.now(),
  };
}
