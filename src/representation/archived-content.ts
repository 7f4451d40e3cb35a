/**
 * The headers every answer that carries archived bytes goes out with.
 * Archived HTML is someone else's content served from the archive's own
 * origin, the one the dashboard and its session cookie live on. So it is
 * never allowed to act as that origin, nor to reach beyond the archive:
 *
 * - `Content-Security-Policy`, `ARCHIVED_CONTENT_POLICY`:
 *   - `sandbox` (no allow-* tokens): the browser gives the document an
 *     opaque origin, runs none of its scripts, submits none of its forms,
 *     opens no popups, follows no meta refresh. It cannot read the
 *     dashboard, see its cookie (SameSite=Strict, and the sandboxed origin
 *     is another site), or rewrite the address bar with `history.replaceState`.
 *   - every load confined to the archive itself and `data:`: `sandbox`
 *     stops scripts, not loads, and an archived page naming another host in
 *     a stylesheet, @import, image, srcset, font, frame, object, embed,
 *     video, preload or CSS background would have every reader's browser
 *     fetch it, telling that host who reads what (and letting it change
 *     what the archived page shows, years after it was archived).
 *     `default-src` stands for every fetch directive (style, img, font,
 *     frame, child, object, media, connect, manifest, worker, script);
 *     `script-src 'none'` on top of the sandbox; inline style is allowed, as
 *     archived pages carry their own (whatever it names is still img-src's
 *     and font-src's to allow). `'self'` is the archive's origin even for
 *     the sandboxed document, whose own origin is opaque, so a page's
 *     stylesheet or image archived beside it still loads. `form-action` and
 *     `base-uri` are not fetch directives, so they are named: a `<base
 *     href>` on another host would otherwise move the page's relative URLs there.
 * - `X-Content-Type-Options: nosniff`: a browser takes the Content-Type as
 *   given (which src/page/content-model.ts allows per content model) and
 *   never sniffs a text revision into HTML or script.
 *
 * Set on 200, 206, 304 and every problem a read answers (404, 410), for
 * identity, br, gzip and dcb alike, since they all pass through here
 * (src/tiers/respond.ts), and on exports (workers/routes/read/export-routes.ts).
 *
 * @example
 * sandboxArchived(headers); // before the response is built
 */
export const ARCHIVED_CONTENT_POLICY = [
  "sandbox",
  "default-src 'self' data:",
  "script-src 'none'",
  "style-src 'self' data: 'unsafe-inline'",
  "form-action 'self'",
  "base-uri 'self'",
].join("; ");

export const ARCHIVED_CONTENT_HEADERS = {
  "content-security-policy": ARCHIVED_CONTENT_POLICY,
  "x-content-type-options": "nosniff",
} as const;

export function sandboxArchived(headers: Headers): void {
  for (const [name, value] of Object.entries(ARCHIVED_CONTENT_HEADERS)) headers.set(name, value);
}
