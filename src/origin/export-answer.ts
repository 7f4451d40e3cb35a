/**
 * An export's validators, and an anonymous export as a tier answer.
 *
 * What an export's bytes depend on is the page's version (every write,
 * suppression and deletion bumps it: durable-objects/page-store.md), the
 * selection (offset, limit, dir), the scope (public, or a `backup` token's,
 * which holds suppressed content) and the byte bound of an answer: its
 * strong ETag is made of exactly those, so `If-None-Match` is answered from
 * the version alone, without reading a revision. The version is read before
 * the answer is planned: a write landing meanwhile makes the answer newer
 * than its tag says (never older), and that write's purge raises the tiers'
 * floor above the tag's version, so they keep none of it.
 *
 * An anonymous answer carries at most `export.anonymousMaxBytes` of text, so
 * its XML fits one tier entry (`tiers.maxEntryBytes`), and is made whole,
 * here, as any other origin answer: the tiers keep it, purges reach it as
 * they reach the page's history (it is a mutable key under `/page/{title}`),
 * and a repeated export is a tier hit. Caching answers of `export.maxBytes`
 * (32 MiB of text, 43 MB of XML) whole instead would cost each tier an
 * eighth of its storage budget (`tiers.storedBytes`) per answer and hold
 * the whole body in memory on every hit; caching only small pages' exports
 * would leave the large pages, the costly ones, uncached. An answer whose
 * XML outgrows an entry all the same (one revision over the bound, or
 * markup that escapes to far more bytes) stops being made as soon as it
 * does, and the route streams it as a backup is streamed
 * (`pastTiersOf`), rate-limited like any anonymous export.
 *
 * @example
 * const selection = exportSelection(null, "asc", 1000);
 * const etag = await exportEtag(ref.key, version, "backup", selection, LIMITS.export.maxBytes);
 */
import { pageStoreOf } from "../bindings.ts";
import { concatChunks } from "../codec/runtime/stream-io.ts";
import { ProblemError } from "../http/problem.ts";
import { sha256Hex } from "../lib/digests.ts";
import { LIMITS } from "../limits.ts";
import { pageExists } from "../page/directory.ts";
import type { ExportDirection, ExportPlan, ExportStart } from "../page/export-types.ts";
import type { PageRef } from "../page/page-ref.ts";
import { CACHE_CONTROL } from "../representation/cache-control.ts";
import type { Answer, OriginQuery } from "./answer.ts";
import { answerProblem } from "./answer-body.ts";
import { EXPORT_GENERATOR } from "./export-xml.ts";
import { exportChunks, planExport, type ExportRequest } from "./export.ts";
import { answerTags } from "./tags.ts";

export type ExportScope = "public" | "backup";

export const EXPORT_CONTENT_TYPE = "application/xml; charset=utf-8";

/** The answer's header naming the offset of the next answer; the route turns it into `Link: rel="next"`. */
export const NEXT_HEADER = "x-export-next";

/** A selection in one spelling (a time offset as epoch seconds), for the cache key and the ETag. */
export function exportSelection(start: ExportStart | null, dir: ExportDirection, limit: number): string {
  const offset =
    start === null
      ? ""
      : "after" in start
        ? `a${start.after}`
        : "before" in start
          ? `b${start.before}`
          : `t${start.time}`;
  return `offset=${offset}&limit=${limit}&dir=${dir}`;
}

/**
 * The page's version now, asked of its PageStore without reading a revision; null if it has none to give (no such page,
 * or deleted).
 */
export async function exportVersion(env: Env, ref: PageRef): Promise<number | null> {
  // A title nobody wrote is answered without waking (and so creating) its PageStore.
  if (!(await pageExists(env, ref.key))) return null;
  const page = await pageStoreOf(env, ref.key).history({}, 1);
  return "revisions" in page ? page.version : null;
}

/** The strong ETag of an export answer: what determines its bytes, and nothing else. */
export async function exportEtag(
  pageKey: string,
  version: number,
  scope: ExportScope,
  selection: string,
  maxBytes: number,
): Promise<string> {
  const what = [EXPORT_GENERATOR, pageKey, scope, String(maxBytes), selection].join("\n");
  const digest = await sha256Hex(new TextEncoder().encode(what));
  return `"export-${version}-${digest.slice(0, 32)}"`;
}

/** `Content-Disposition` naming the page's file: ASCII for old clients, the UTF-8 name for the rest (RFC 6266). */
function attachment(key: string): string {
  const ascii = key.replace(/[^A-Za-z0-9._-]/g, "_");
  return `attachment; filename="${ascii}.xml"; filename*=UTF-8''${encodeURIComponent(key)}.xml`;
}

/** The headers of an export answer, streamed or whole. */
export function exportHeaders(
  ref: PageRef,
  plan: Pick<ExportPlan, "count" | "next">,
  etag: string | null,
  cacheControl: string,
): Record<string, string> {
  return {
    "content-type": EXPORT_CONTENT_TYPE,
    "content-disposition": attachment(ref.key),
    "cache-control": cacheControl,
    "x-export-revisions": String(plan.count),
    ...(etag === null ? {} : { etag }),
    ...(plan.next === null ? {} : { [NEXT_HEADER]: plan.next }),
  };
}

const PAST_TIERS = "export_past_tiers";

/** The answer's XML outgrew a tier entry: the route streams it instead (never shown to a client). */
function pastTiers(version: number | null, etag: string | null): ProblemError {
  return new ProblemError({
    status: 413,
    code: PAST_TIERS,
    detail: "this export answer is bigger than a tier entry and is streamed past the tiers",
    limit: "tiers.maxEntryBytes",
    extensions: { version, etag },
  });
}

/** If the tiers' answer says the export streams past them: the version and ETag its origin read. */
export function pastTiersOf(entry: Answer): { version: number | null; etag: string | null } | null {
  if (entry.status !== 413) return null;
  const problem = answerProblem(entry);
  if (problem.code !== PAST_TIERS) return null;
  const { version, etag } = problem;
  return { version: typeof version === "number" ? version : null, etag: typeof etag === "string" ? etag : null };
}

/** An anonymous export answer, made whole for the tiers to keep; too big for an entry, the signal to stream it. */
export async function renderExport(env: Env, query: Extract<OriginQuery, { kind: "export" }>): Promise<Answer> {
  const { ref, start, dir, limit } = query;
  const maxBytes = LIMITS.export.anonymousMaxBytes;
  const req: ExportRequest = { ref, start, dir, limit, withSuppressed: false, maxBytes };
  const version = await exportVersion(env, ref);
  const plan = await planExport(env, req);
  const etag =
    version === null
      ? null
      : await exportEtag(ref.key, version, "public", exportSelection(start, dir, limit), maxBytes);
  if (plan.textBytes > LIMITS.tiers.maxEntryBytes) throw pastTiers(version, etag);
  const pieces: Uint8Array[] = [];
  let size = 0;
  for await (const piece of exportChunks(env, req, plan)) {
    size += piece.byteLength;
    // Leaving the loop ends the generator: no revision past this one is read.
    if (size > LIMITS.tiers.maxEntryBytes) throw pastTiers(version, etag);
    pieces.push(piece);
  }
  const tags = answerTags(ref.key, EXPORT_CONTENT_TYPE);
  return {
    status: 200,
    headers: { ...exportHeaders(ref, plan, etag, CACHE_CONTROL.changing), "cache-tag": tags.join(",") },
    body: concatChunks(pieces),
    version: version ?? 0,
    page: ref.key,
    mutable: true,
    storedAt: Date.now(),
    tags,
  };
}
