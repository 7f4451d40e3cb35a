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
 * from it never leave.
 *
 * The export streams, identity: a route's body is compressed per request only
 * up to `wire.maxCompressBytes`, so it goes out with `Vary: Accept-Encoding`
 * for the compress middleware to leave alone, and the edge in front (Cloudflare's,
 * or wrangler dev's) codes it br or gzip for the client, as it streams.
 */
import { Hono, type MiddlewareHandler } from "hono";
import type { AppEnv } from "../../app-env.ts";
import { exportQuery, pageListQuery } from "../../../src/http/queries.ts";
import { validated } from "../../../src/http/validate.ts";
import { exportPage } from "../../../src/origin/export.ts";
import { searchTitles } from "../../../src/page/directory.ts";
import { titleSegment, type PageRef } from "../../../src/page/page-ref.ts";
import type { PageListBody } from "../../../src/wire.ts";
import { canonicalTitle } from "../../middleware/canonical-title.ts";
import { requireScope, type AuthVariables } from "../../middleware/require-scope.ts";

type ExportEnv = AppEnv & { Variables: { ref: PageRef } & Partial<AuthVariables> };

export const exportRoutes = new Hono<ExportEnv>();

const backupScope = requireScope("backup") as unknown as MiddlewareHandler<ExportEnv>;

/** No credentials: a public export. Credentials: they must be a backup token's (401 or 403 otherwise, as every token route answers). */
const optionalBackupToken: MiddlewareHandler<ExportEnv> = (c, next) =>
  c.req.header("authorization") === undefined ? next() : backupScope(c, next);

/** `Content-Disposition` naming the page's file: ASCII for old clients, the UTF-8 name for the rest (RFC 6266). */
function attachment(key: string): string {
  const ascii = key.replace(/[^A-Za-z0-9._-]/g, "_");
  return `attachment; filename="${ascii}.xml"; filename*=UTF-8''${encodeURIComponent(key)}.xml`;
}

exportRoutes.get(
  "/page/:title/export",
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
    const withSuppressed = c.get("principal")?.scopes.includes("backup") ?? false;
    const exported = await exportPage(c.env, { ref, start: offset ?? null, dir, limit, withSuppressed });
    const headers = new Headers({
      "content-type": "application/xml; charset=utf-8",
      "content-disposition": attachment(ref.key),
      // Made per request and never kept: a suppression's purge could not reach a copy.
      "cache-control": "no-store",
      vary: "Accept-Encoding, Authorization",
      // Archived bytes, as every read answer sends them (docs/security.md).
      "content-security-policy": "sandbox",
      "x-content-type-options": "nosniff",
      "x-export-revisions": String(exported.count),
    });
    if (exported.next !== null) {
      const next = new URL(`/page/${titleSegment(ref.key)}/export`, c.req.url);
      next.searchParams.set("offset", exported.next);
      next.searchParams.set("limit", String(limit));
      next.searchParams.set("dir", dir);
      headers.set("link", `<${next.toString()}>; rel="next"`);
    }
    return new Response(exported.body, { status: 200, headers });
  },
);

exportRoutes.get(
  "/api/pages",
  validated("query", pageListQuery, "page list", {
    limit: { status: 400, code: "invalid_limit", limit: "export.pagesPerList" },
  }),
  async (c) => {
    const { after, limit } = c.req.valid("query");
    const { matches, next } = await searchTitles(c.env, "", { after, limit });
    const pages = matches.map((m) => ({ key: m.key, revisions: m.revisions, deleted: m.deleted }));
    return c.json({ pages, next } satisfies PageListBody);
  },
);
