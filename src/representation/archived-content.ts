/**
 * The headers every answer that carries archived bytes goes out with.
 * Archived HTML is someone else's content served from the archive's own
 * origin, the one the dashboard and its session cookie live on. So it is
 * never allowed to act as that origin:
 *
 * - `Content-Security-Policy: sandbox` (no allow-* tokens): the browser
 *   gives the document an opaque origin, runs none of its scripts, submits
 *   none of its forms, opens no popups. It cannot read the dashboard, see
 *   its cookie (SameSite=Strict, and the sandboxed origin is another site),
 *   or rewrite the address bar with `history.replaceState`.
 * - `X-Content-Type-Options: nosniff`: a browser takes the Content-Type as
 *   given (which src/page/content-model.ts allows per content model) and
 *   never sniffs a text revision into HTML or script.
 *
 * Set on 200, 206, 304 and every problem a read answers (404, 410), for
 * identity, br, gzip and dcb alike, since they all pass through here.
 *
 * @example
 * sandboxArchived(headers); // before the response is built
 */
export const ARCHIVED_CONTENT_HEADERS = {
  "content-security-policy": "sandbox",
  "x-content-type-options": "nosniff",
} as const;

export function sandboxArchived(headers: Headers): void {
  for (const [name, value] of Object.entries(ARCHIVED_CONTENT_HEADERS)) headers.set(name, value);
}
