/**
 * Preconditions of RFC 9110 §13.2.2, evaluated in its order against the
 * selected representation's validators: If-Match (strong comparison) else
 * If-Unmodified-Since → 412; then If-None-Match (weak comparison) → 304 for
 * GET/HEAD, 412 otherwise; else If-Modified-Since → 304 for GET/HEAD. A date
 * is ignored when it does not parse or there is no Last-Modified to compare.
 * If-Range is the Range step's (./range.ts).
 *
 * @example
 * precondition(request.method, request.headers, { etag: '"abc"', lastModified: "Wed, 01 Jan 2020 00:00:00 GMT" });
 * // → "proceed" | "not-modified" | "failed"
 */

export interface Validators {
  /** The selected representation's entity tag, quoted, maybe `W/`. */
  etag?: string | null;
  /** An HTTP-date. */
  lastModified?: string | null;
}

export type PreconditionOutcome = "proceed" | "not-modified" | "failed";

/** The entity tags of an If-Match / If-None-Match list, or "*". Commas cannot occur inside an entity tag. */
function tagsOf(list: string): string[] | "*" {
  const trimmed = list.trim();
  if (trimmed === "*") return "*";
  return trimmed
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
}

const opaque = (tag: string) => (tag.startsWith("W/") ? tag.slice(2) : tag);
const isWeak = (tag: string) => tag.startsWith("W/");

/** Strong comparison (§8.8.3.2): both strong and the same. */
export function strongMatch(a: string, b: string): boolean {
  return !isWeak(a) && !isWeak(b) && a === b;
}

/** Weak comparison: the same opaque tag, weak or not. */
export function weakMatch(a: string, b: string): boolean {
  return opaque(a) === opaque(b);
}

/** Seconds since the epoch of an HTTP-date, or undefined if it is not one. */
export function httpDateSeconds(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

export function precondition(method: string, headers: Headers, current: Validators): PreconditionOutcome {
  const safe = method === "GET" || method === "HEAD";
  const etag = current.etag ?? undefined;
  const modified = httpDateSeconds(current.lastModified);

  const ifMatch = headers.get("if-match");
  if (ifMatch !== null) {
    const tags = tagsOf(ifMatch);
    // "*" holds whenever there is a current representation, which is the case for any response we validate.
    if (tags !== "*" && !(etag && tags.some((t) => strongMatch(t, etag)))) return "failed";
  } else {
    const since = httpDateSeconds(headers.get("if-unmodified-since"));
    if (since !== undefined && modified !== undefined && modified > since) return "failed";
  }

  const ifNoneMatch = headers.get("if-none-match");
  if (ifNoneMatch !== null) {
    const tags = tagsOf(ifNoneMatch);
    if (tags === "*" || (etag && tags.some((t) => weakMatch(t, etag)))) return safe ? "not-modified" : "failed";
  } else if (safe) {
    const since = httpDateSeconds(headers.get("if-modified-since"));
    if (since !== undefined && modified !== undefined && modified <= since) return "not-modified";
  }
  return "proceed";
}
