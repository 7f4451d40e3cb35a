/**
 * The Range step of RFC 9110 (§14.2, §13.1.5 If-Range), over the selected
 * representation (a br body's bytes, if br was chosen). One range → 206; a
 * set of ranges → the whole body with 200, which the RFC allows and which
 * spares clients multipart parsing; no satisfiable range → 416 with
 * a Content-Range of an asterisk over the length. A malformed header, a unit other than
 * bytes, a method other than GET or an If-Range that no longer holds → 200.
 *
 * @example
 * selectRange("GET", headers, 1000, { etag: '"abc"' });   // { kind: "partial", start: 0, end: 99 }
 */
import parseRange from "range-parser";
import { httpDateSeconds, strongMatch, type Validators } from "./conditional.ts";

export type RangeSelection =
  { kind: "full" } | { kind: "partial"; start: number; end: number } | { kind: "unsatisfiable" };

/** If-Range holds when its entity tag matches strongly, or its date is exactly the Last-Modified. */
function ifRangeHolds(value: string, current: Validators): boolean {
  const v = value.trim();
  if (v.startsWith('"') || v.startsWith("W/")) return current.etag ? strongMatch(v, current.etag) : false;
  const date = httpDateSeconds(v);
  return date !== undefined && date === httpDateSeconds(current.lastModified);
}

export function selectRange(method: string, headers: Headers, size: number, current: Validators): RangeSelection {
  const range = headers.get("range");
  if (method !== "GET" || range === null) return { kind: "full" };
  const ifRange = headers.get("if-range");
  if (ifRange !== null && !ifRangeHolds(ifRange, current)) return { kind: "full" };
  const parsed = parseRange(size, range, { combine: true });
  if (parsed === -2) return { kind: "full" };
  if (parsed === -1) return { kind: "unsatisfiable" };
  if (parsed.type !== "bytes" || parsed.length !== 1) return { kind: "full" };
  const { start, end } = parsed[0]!;
  return { kind: "partial", start, end };
}
