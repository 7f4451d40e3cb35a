/**
 * Pages out of the archive, as MediaWiki exports:
 *
 *   GET /page/{title}/export   the page's history, MediaWiki export 0.11 (src/origin/export.ts);
 *                              ?offset=&limit=&dir= as Special:Export takes them, and
 *                              `Link: <…>; rel="next"` while the history goes on
 *   GET /api/pages             every page's title, in key order, `export.pagesPerList` at a time
 *                              (?after=<key>&limit=), for `palimpsest export` to walk the archive
 *
 * Both are public. An export asked with `Authorization: Bearer` must carry a
 * `backup`-scope token, and then holds suppressed revisions' content, marked
 * as suppressed; without a token, suppressed content and anything derived
 * from it never leave. With a backup token, `GET /api/pages` also lists the
 * pages deleted as MediaWiki deletes (restorable, so kept).
 *
 * Every export answer has a strong ETag made of the page's version, the
 * selection and the scope (src/origin/export-answer.ts), so `If-None-Match`
 * is answered 304 without reading a revision. An anonymous export is
 * counted against its client's `export.anonymousPerMinute` (429 past it),
 * carries at most `export.anonymousMaxBytes` of text, and is read through
 * the tiers like a history page: a repeated one is a tier hit (in this colo's
 * cache, answered 304 or streamed on without the Worker reading it), and a write,
 * suppression or deletion of the page purges it. A backup's export, and an
 * anonymous answer too big for a tier entry, stream from the origin, `no-store`.
 *
 * Exports go out identity: a route's body is compressed per request only up
 * to `wire.maxCompressBytes`, so they go out with `Vary: Accept-Encoding` for
 * the compress middleware to leave alone, and the edge in front (Cloudflare's,
 * or wrangler dev's) codes them br or gzip for the client, as they stream.
 */
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../app-env.ts";
import type { Colo } from "../../../src/config/colo.ts";
import { chargeAnonymousExport } from "../../../src/http/export-rate.ts";
import { exportQuery, pageListQuery } from "../../../src/http/queries.ts";
import { URL_FORMS } from "../../../src/http/url-forms.ts";
import { validated } from "../../middleware/validated.ts";
import { LIMITS } from "../../../src/limits.ts";
import {
  exportEtag,
  exportHeaders,
  exportSelection,
  exportVersion,
  NEXT_HEADER,
  pastTiersOf,
} from "../../../src/origin/export-answer.ts";
import { exportPage, planExport, type ExportRequest } from "../../../src/origin/export.ts";
import { searchTitles } from "../../../src/page/directory.ts";
import { titleSegment, type PageRef } from "../../../src/page/page-ref.ts";
import { sandboxArchived } from "../../../src/representation/archived-content.ts";
import { precondition } from "../../../src/representation/conditional.ts";
import { addVary } from "../../../src/representation/vary.ts";
import { readThroughTiers } from "../../../src/tiers/chain.ts";
import { problemOf, respondIdentity, type Asker } from "../../../src/tiers/respond.ts";
import type { PageListBody } from "../../../src/wire.ts";
import { canonicalTitle } from "../../middleware/canonical-title.ts";
import { optionalScope, type AuthVariables } from "../../middleware/require-scope.ts";
import { withColo } from "../../middleware/with-colo.ts";

type ExportEnv = AppEnv & { Variables: { ref: PageRef; colo: Colo } & Partial<AuthVariables> };

export const exportRoutes = new Hono<ExportEnv>();

/** No credentials: a public export. Credentials: they must be a backup token's. */
const optionalBackupToken = optionalScope("backup");

/**
 * `Link: rel="next"` to the answer that goes on from `offset`, absolute, so it is made here rather than kept in the
 * tiers.
 */
function nextLink(c: Context<ExportEnv>, ref: PageRef, offset: string, limit: number, dir: string): string {
  const next = new URL(`/page/${titleSegment(ref.key)}/export`, c.req.url);
  next.searchParams.set("offset", offset);
  next.searchParams.set("limit", String(limit));
  next.searchParams.set("dir", dir);
  return `<${next.toString()}>; rel="next"`;
}

/** What every export answer goes out with besides its own headers. */
function finish(c: Context<ExportEnv>, headers: Headers, query: { ref: PageRef; limit: number; dir: string }): void {
  const next = headers.get(NEXT_HEADER);
  headers.delete(NEXT_HEADER);
  if (next !== null) headers.set("link", nextLink(c, query.ref, next, query.limit, query.dir));
  // The answer differs with the token (a backup holds suppressed content), and the front line codes it.
  addVary(headers, "Accept-Encoding", "Authorization");
  // Archived bytes, as every read answer sends them (docs/security.md).
  sandboxArchived(headers);
}

/**
 * An export streamed from the origin, `no-store`: a backup's, or an anonymous answer too big for a
 * tier entry. `etag` is null where the page has no version to give (the export then says why).
 */
async function streamed(c: Context<ExportEnv>, req: ExportRequest, etag: string | null): Promise<Response> {
  const head = (plan: { count: number; next: string | null }) => {
    const headers = new Headers(exportHeaders(req.ref, plan, etag, "no-store"));
    finish(c, headers, req);
    return headers;
  };
  // Answered from the version alone: nothing is planned, nothing read.
  if (etag !== null && precondition("GET", c.req.raw.headers, { etag }) === "not-modified") {
    const headers = head({ count: 0, next: null });
    for (const name of ["content-type", "content-disposition", "x-export-revisions"]) headers.delete(name);
    return new Response(null, { status: 304, headers });
  }
  const plan = await planExport(c.env, req);
  const exported = await exportPage(c.env, req, plan);
  return new Response(exported.body, { status: 200, headers: head(plan) });
}

exportRoutes.get(
  URL_FORMS.export,
  withColo,
  canonicalTitle<ExportEnv>(() => "/export"),
  validated("query", exportQuery, "export", {
    offset: { status: 400, code: "invalid_offset" },
    limit: { status: 400, code: "invalid_limit", limit: "export.maxRevisions" },
    dir: { status: 400, code: "invalid_dir" },
  }),
  optionalBackupToken,
  async (c) => {
    const ref = c.get("ref");
    const { offset, limit, dir } = c.req.valid("query");
    const start = offset ?? null;
    const selection = exportSelection(start, dir, limit);
    if (c.get("principal")?.scopes.includes("backup")) {
      const maxBytes = LIMITS.export.maxBytes;
      const version = await exportVersion(c.env, ref);
      const etag = version === null ? null : await exportEtag(ref.key, version, "backup", selection, maxBytes);
      return streamed(c, { ref, start, dir, limit, withSuppressed: true, maxBytes }, etag);
    }
    await chargeAnonymousExport(c.env, c.req.raw);
    // A fresh hit in this colo's cache comes with its body (megabytes of XML) unread: a 304 never reads it, a 200
    // streams it.
    const through = await readThroughTiers(
      c.env,
      c.executionCtx,
      c.get("colo"),
      { kind: "export", ref, start, dir, limit },
      { leaveBody: true },
    );
    const asker: Asker = { request: c.req.raw, requestId: c.get("requestId") };
    if ("stored" in through)
      return respondIdentity(asker, through, (headers) => finish(c, headers, { ref, limit, dir }));
    const past = pastTiersOf(through.entry);
    if (past) {
      const maxBytes = LIMITS.export.anonymousMaxBytes;
      return streamed(c, { ref, start, dir, limit, withSuppressed: false, maxBytes }, past.etag);
    }
    if (through.entry.status !== 200) throw problemOf(asker, through);
    return respondIdentity(asker, through, (headers) => finish(c, headers, { ref, limit, dir }));
  },
);

exportRoutes.get(
  "/api/pages",
  validated("query", pageListQuery, "page list", {
    limit: { status: 400, code: "invalid_limit", limit: "export.pagesPerList" },
  }),
  optionalBackupToken,
  async (c) => {
    const { after, limit } = c.req.valid("query");
    // A backup lists the pages deleted as MediaWiki deletes too (restorable, so kept): their exports hold them.
    const withDeleted = c.get("principal")?.scopes.includes("backup") ?? false;
    const { matches, next } = await searchTitles(c.env, "", { after, limit, withDeleted });
    const pages = matches.map((m) => ({ key: m.key, revisions: m.revisions, deleted: m.deleted }));
    return c.json({ pages, next } satisfies PageListBody);
  },
);
