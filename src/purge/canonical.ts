/**
 * From what an operator names to what the tiers hold: a URL to its
 * canonical cache key (the one src/tiers/cache-key.ts derives from a read),
 * a `host/path` prefix to a key prefix. Computed once at ingest and carried
 * in the purge event, so no tier parses URLs.
 *
 * An item is either refused (malformed, or a host this archive does not
 * serve: the whole request fails) or dropped (well-formed, on a served host,
 * but never cached, such as /api/… or /healthz: the purge goes ahead without
 * it and says why).
 */
import type { z } from "zod";
import { LIMITS } from "../limits.ts";
import { ProblemError } from "../http/problem.ts";
import { atQuery, exportQuery, historyQuery, revisionParam, timemapParam, timemapQuery } from "../http/queries.ts";
import { pageRef } from "../page/page-ref.ts";
import { compareKey, exportKey, historyKey, latestKey, revisionKey, timemapKey } from "../tiers/cache-key.ts";
import { compareRange } from "../compare/range.ts";
import { CONTROL } from "./tag-syntax.ts";

export type Resolved<T> = { ok: true; value: T } | { ok: false; refused: string } | { ok: false; dropped: string };

/** The hosts this archive answers for: the one the purge request came to, and PUBLIC_ORIGIN's. */
export class ServedHosts {
  readonly #hosts: Set<string>;

  constructor(...hosts: Array<string | null | undefined>) {
    this.#hosts = new Set(
      hosts.filter((h): h is string => !!h).flatMap((h) => [h.toLowerCase(), h.toLowerCase().replace(/:\d+$/, "")]),
    );
  }

  /** A host, with or without its port. */
  has(host: string): boolean {
    const h = host.toLowerCase();
    return this.#hosts.has(h) || this.#hosts.has(h.replace(/:\d+$/, ""));
  }

  get list(): string[] {
    return [...this.#hosts];
  }
}

const NOT_CACHED = "never cached: only /page/… and /timemap/… answers are kept in the tiers";

/** Half of a UTF-16 surrogate pair on its own: no URL can carry it (encodeURIComponent throws on one). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Splits a path into decoded segments; null if it climbs (`..`), or hides control characters or unpaired surrogates. */
function segments(path: string): string[] | null {
  let decoded: string[];
  try {
    decoded = path
      .split("/")
      .slice(1)
      .map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
  if (decoded.some((s) => s === ".." || s === "." || CONTROL.test(s) || LONE_SURROGATE.test(s))) return null;
  return decoded;
}

const PATH_REFUSAL = "contains .., an unreadable escape or character, or a control character in its path";

/** The page key of a title segment, or why it has none. */
function pageKeyOf(segment: string): { key: string } | { dropped: string } {
  try {
    return { key: pageRef(segment).key };
  } catch (err) {
    return { dropped: `never cached: ${err instanceof ProblemError ? (err.detail ?? err.title) : "not a title"}` };
  }
}

/** The cache key a read of this URL would use. */
export function keyOfUrl(raw: string, served: ServedHosts): Resolved<string> {
  if (raw.length > LIMITS.purge.maxPurgeUrlChars)
    return { ok: false, refused: `longer than ${LIMITS.purge.maxPurgeUrlChars} characters` };
  if (CONTROL.test(raw)) return { ok: false, refused: "contains a control character" };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, refused: "is not an absolute URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, refused: "is not an http(s) URL" };
  if (!served.has(url.host))
    return { ok: false, refused: `host ${url.host} is not served by this archive (served: ${served.list.join(", ")})` };
  // URL parsing resolves `..` before we see it; a purge that names one was written to mean something else.
  if (/(^|\/)\.\.?(\/|$)|%2e%2e/i.test(raw.replace(/^[a-z]+:\/\/[^/]*/i, "").split("?", 1)[0]!))
    return { ok: false, refused: PATH_REFUSAL };
  const parts = segments(url.pathname);
  if (!parts) return { ok: false, refused: PATH_REFUSAL };
  if (parts[0] === "timemap") return timemapKeyOfUrl(url, parts);
  if (parts[0] === "page" && parts.length === 4 && parts[2] === "compare") return compareKeyOfUrl(parts);
  if (parts[0] !== "page" || parts.length < 2 || parts.length > 3 || !parts[1])
    return { ok: false, dropped: NOT_CACHED };
  const page = pageKeyOf(parts[1]);
  if ("dropped" in page) return { ok: false, ...page };
  // The route's own schemas: a URL the route would refuse is never cached, and one it accepts has the key it would read.
  const param = (name: string) => url.searchParams.get(name) ?? undefined;
  const refused = (issues: z.core.$ZodIssue[]) => ({
    ok: false as const,
    dropped: `never cached: ${issues[0]!.path.join(".")} ${issues[0]!.message}`,
  });
  if (parts.length === 2) {
    const query = atQuery.safeParse({ at: param("at") });
    return query.success ? { ok: true, value: latestKey(page.key, query.data.at).key } : refused(query.error.issues);
  }
  if (parts[2] === "history") {
    const query = historyQuery.safeParse({ limit: param("limit"), older: param("older"), newer: param("newer") });
    return query.success
      ? { ok: true, value: historyKey(page.key, query.data.limit, query.data.older ?? query.data.newer).key }
      : refused(query.error.issues);
  }
  if (parts[2] === "export") {
    // Only anonymous exports are kept (a backup's streams, no-store): the key its route reads through the tiers.
    const query = exportQuery.safeParse({ offset: param("offset"), limit: param("limit"), dir: param("dir") });
    return query.success
      ? { ok: true, value: exportKey(page.key, query.data.offset ?? null, query.data.dir, query.data.limit).key }
      : refused(query.error.issues);
  }
  const revision = revisionParam.safeParse({ title: parts[1], revid: parts[2] });
  return revision.success
    ? { ok: true, value: revisionKey(page.key, revision.data.revid).key }
    : { ok: false, dropped: NOT_CACHED };
}

/** A compare page's key (`/page/{title}/compare/{from}...{to}`), parsed as its route parses it. */
function compareKeyOfUrl(parts: string[]): Resolved<string> {
  const page = pageKeyOf(parts[1]!);
  if ("dropped" in page) return { ok: false, ...page };
  const range = compareRange.safeParse(parts[3]);
  return range.success
    ? { ok: true, value: compareKey(page.key, range.data.from, range.data.to).key }
    : { ok: false, dropped: NOT_CACHED };
}

/** A TimeMap URL's key: TimeMaps are kept per origin their links are written for, the URL's own. */
function timemapKeyOfUrl(url: URL, parts: string[]): Resolved<string> {
  const param = timemapParam.safeParse({ format: parts[1], title: parts[2] });
  if (parts.length !== 3 || !param.success) return { ok: false, dropped: NOT_CACHED };
  const page = pageKeyOf(param.data.title);
  if ("dropped" in page) return { ok: false, ...page };
  const query = timemapQuery.safeParse({
    after: url.searchParams.get("after") ?? undefined,
    before: url.searchParams.get("before") ?? undefined,
  });
  if (!query.success)
    return {
      ok: false,
      dropped: `never cached: ${query.error.issues[0]!.path.join(".")} ${query.error.issues[0]!.message}`,
    };
  return { ok: true, value: timemapKey(page.key, param.data.format, url.origin, query.data).key };
}

/** The key prefix a Cloudflare-style `host/path` prefix names. */
export function keyPrefixOf(raw: string, served: ServedHosts): Resolved<string> {
  if (raw.length > LIMITS.purge.maxPurgeUrlChars)
    return { ok: false, refused: `longer than ${LIMITS.purge.maxPurgeUrlChars} characters` };
  if (CONTROL.test(raw)) return { ok: false, refused: "contains a control character" };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return { ok: false, refused: "has a scheme; prefixes are host/path" };
  if (/[?#]/.test(raw)) return { ok: false, refused: "has a query or fragment; prefixes are host/path" };
  const slash = raw.indexOf("/");
  const [host, path] = slash === -1 ? [raw, ""] : [raw.slice(0, slash), raw.slice(slash)];
  if (!/^[a-z0-9.-]+(:\d{1,5})?$/i.test(host)) return { ok: false, refused: "does not start with a host name" };
  if (!served.has(host))
    return { ok: false, refused: `host ${host} is not served by this archive (served: ${served.list.join(", ")})` };
  const parts = segments(path.replace(/\/+$/, ""));
  if (!parts) return { ok: false, refused: PATH_REFUSAL };
  if (parts.length === 0) return { ok: true, value: "/page" };
  // A page's TimeMaps live under its own keys (/page/{title}/timemap/{format}?…).
  if (parts[0] === "timemap" && parts.length === 3 && (parts[1] === "link" || parts[1] === "json")) {
    const page = pageKeyOf(parts[2]!);
    return "dropped" in page
      ? { ok: false, ...page }
      : { ok: true, value: `/page/${encodeURIComponent(page.key)}/timemap/${parts[1]}` };
  }
  if (parts[0] !== "page") return { ok: false, dropped: NOT_CACHED };
  if (parts.length === 1) return { ok: true, value: "/page" };
  const page = pageKeyOf(parts[1]!);
  if ("dropped" in page) return { ok: false, ...page };
  return {
    ok: true,
    value: [`/page/${encodeURIComponent(page.key)}`, ...parts.slice(2).map(encodeURIComponent)].join("/"),
  };
}

/** A Cloudflare-style host item. */
export function hostOf(raw: string, served: ServedHosts): Resolved<string> {
  if (CONTROL.test(raw)) return { ok: false, refused: "contains a control character" };
  if (!/^[a-z0-9.-]+(:\d{1,5})?$/i.test(raw)) return { ok: false, refused: "is not a host name" };
  if (!served.has(raw))
    return { ok: false, refused: `host ${raw} is not served by this archive (served: ${served.list.join(", ")})` };
  return { ok: true, value: raw.toLowerCase() };
}
