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
import { matchUrlForm, type UrlFormName } from "../http/url-forms.ts";
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

/**
 * Splits a path into decoded segments; null if it climbs (`..`), or hides control characters or unpaired surrogates.
 */
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

/** The key a read of one URL form uses, from its params (decoded) and the URL's query. */
type KeyOfForm = (params: Record<string, string>, url: URL) => Resolved<string>;

/** A query the route's own schema refuses: never cached, and why. */
const refusedQuery = (issues: z.core.$ZodIssue[]): Resolved<string> => ({
  ok: false,
  dropped: `never cached: ${issues[0]!.path.join(".")} ${issues[0]!.message}`,
});

/** A `/page/{title}…` form's key, once its title is a page's. */
const onPage =
  (
    keyOf: (
      page: string,
      params: Record<string, string>,
      query: (name: string) => string | undefined,
    ) => Resolved<string>,
  ) =>
  (params: Record<string, string>, url: URL): Resolved<string> => {
    const page = pageKeyOf(params.title!);
    if ("dropped" in page) return { ok: false, ...page };
    return keyOf(page.key, params, (name) => url.searchParams.get(name) ?? undefined);
  };

/**
 * Every public URL form (src/http/url-forms.ts) and the key its answer is
 * kept under, parsed with the route's own schemas: a URL the route would
 * refuse is never cached, and one it accepts has the key it would read.
 */
const KEYS: Record<UrlFormName, KeyOfForm | null> = {
  home: null,
  search: null,
  latest: onPage((page, _, param) => {
    const query = atQuery.safeParse({ at: param("at") });
    return query.success ? { ok: true, value: latestKey(page, query.data.at).key } : refusedQuery(query.error.issues);
  }),
  history: onPage((page, _, param) => {
    const query = historyQuery.safeParse({ limit: param("limit"), older: param("older"), newer: param("newer") });
    return query.success
      ? { ok: true, value: historyKey(page, query.data.limit, query.data.older ?? query.data.newer).key }
      : refusedQuery(query.error.issues);
  }),
  export: onPage((page, _, param) => {
    // Only anonymous exports are kept (a backup's streams, no-store): the key its route reads through the tiers.
    const query = exportQuery.safeParse({ offset: param("offset"), limit: param("limit"), dir: param("dir") });
    return query.success
      ? { ok: true, value: exportKey(page, query.data.offset ?? null, query.data.dir, query.data.limit).key }
      : refusedQuery(query.error.issues);
  }),
  // A redirect to the compare page.
  compareForm: null,
  compare: onPage((page, params) => {
    const range = compareRange.safeParse(params.range);
    return range.success
      ? { ok: true, value: compareKey(page, range.data.from, range.data.to).key }
      : { ok: false, dropped: NOT_CACHED };
  }),
  revision: onPage((page, params) => {
    const revision = revisionParam.safeParse({ title: params.title, revid: params.revid });
    return revision.success
      ? { ok: true, value: revisionKey(page, revision.data.revid).key }
      : { ok: false, dropped: NOT_CACHED };
  }),
  // Pages for people, made from answers the tiers keep under the API's keys.
  view: null,
  viewRevision: null,
  // TimeMaps are kept per origin their links are written for, the URL's own.
  timemap: (params, url) => {
    const param = timemapParam.safeParse({ format: params.format, title: params.title });
    if (!param.success) return { ok: false, dropped: NOT_CACHED };
    const page = pageKeyOf(param.data.title);
    if ("dropped" in page) return { ok: false, ...page };
    const query = timemapQuery.safeParse({
      after: url.searchParams.get("after") ?? undefined,
      before: url.searchParams.get("before") ?? undefined,
    });
    if (!query.success) return refusedQuery(query.error.issues);
    return { ok: true, value: timemapKey(page.key, param.data.format, url.origin, query.data).key };
  },
  // A redirect to the memento current then.
  wayback: null,
};

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
  const match = matchUrlForm(parts);
  const keyOf = match === null ? null : KEYS[match.form];
  return match === null || keyOf === null ? { ok: false, dropped: NOT_CACHED } : keyOf(match.params, url);
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
  const match = matchUrlForm(parts);
  const timemap = match?.form === "timemap" ? timemapParam.safeParse(match.params) : null;
  if (timemap?.success) {
    const page = pageKeyOf(timemap.data.title);
    return "dropped" in page
      ? { ok: false, ...page }
      : { ok: true, value: `/page/${encodeURIComponent(page.key)}/timemap/${timemap.data.format}` };
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
