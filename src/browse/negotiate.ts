/**
 * Accept negotiation (RFC 9110 §12.5.1) between the media types a route can
 * send. Each candidate gets the q-value of the most specific range that
 * matches it (`text/html` over `text/*` over `*\/*`); the highest wins, and a
 * tie goes to the first candidate, so an API client that sends `*\/*` (curl)
 * or nothing keeps getting the JSON it always got, while a browser's
 * `text/html,…,*\/*;q=0.8` gets HTML.
 *
 * @example
 * negotiate("text/html,application/xhtml+xml,*\/*;q=0.8", ["application/json", "text/html"]) // "text/html"
 * negotiate("*\/*", ["application/json", "text/html"])                                       // "application/json"
 * negotiate("application/json;q=0.5, text/html;q=0.4", ["application/json", "text/html"])   // "application/json"
 */
import type { Context } from "hono";
import { parseAccept } from "hono/utils/accept";

/** How specific a range is for a candidate: 3 exact, 2 `type/*`, 1 `*\/*`, 0 no match. */
function specificity(range: string, candidate: string): number {
  if (range === candidate) return 3;
  if (range === "*/*" || range === "*") return 1;
  if (range.endsWith("/*") && candidate.startsWith(range.slice(0, -1))) return 2;
  return 0;
}

/** The candidate the header prefers, or null when it accepts none of them (every match at q=0). */
export function negotiate<T extends string>(accept: string | undefined, candidates: readonly T[]): T | null {
  if (!accept?.trim()) return candidates[0] ?? null;
  const ranges = parseAccept(accept).map((r) => ({ type: r.type.toLowerCase(), q: r.q }));
  let best: T | null = null;
  let bestQ = 0;
  for (const candidate of candidates) {
    let q = 0;
    let most = 0;
    for (const range of ranges) {
      const s = specificity(range.type, candidate);
      if (s > most) [most, q] = [s, range.q];
    }
    if (q > bestQ) [best, bestQ] = [candidate, q];
  }
  return best;
}

/** Whether this request would rather have HTML than any of `otherwise` (JSON, problem JSON), which win ties. */
export function prefersHtml(c: Context, ...otherwise: string[]): boolean {
  return negotiate(c.req.header("accept"), [...otherwise, "text/html"]) === "text/html";
}
