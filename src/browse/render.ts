/**
 * A browse view as a Response: the HTML, its status, and the headers every
 * public page carries (a CSP that allows only the inline stylesheet by its
 * hash, no scripts at all; nosniff; no framing), and, as the JSON answers
 * have, a strong ETag (the body's SHA-256), so a cache revalidates with a
 * 304 (answered by the compression middleware, workers/middleware/compress.ts).
 *
 * @example
 * return htmlResponse(<Layout title="Search">…</Layout>, { status: 200, cacheControl: "public, max-age=30" });
 */
import type { JSX } from "hono/jsx/jsx-runtime";
import { sha256Hex } from "../lib/digests.ts";
import { styleHash } from "./style.ts";

export interface HtmlInit {
  status?: number;
  cacheControl?: string;
  /** Set when the same URL serves other media types too. */
  varyAccept?: boolean;
  headers?: Record<string, string>;
  /** An area's own policy (the dashboard's, under its nonce) instead of the browse pages'. */
  contentSecurityPolicy?: string;
  /**
   * Let the page frame the archive's own URLs (`frame-src 'self'`): the revision viewer's
   * sandboxed <iframe> of an HTML revision, which its own answer sandboxes again
   * (`Content-Security-Policy: sandbox`, every load confined to the archive and `data:`,
   * src/representation/archived-content.ts).
   */
  framesSelf?: boolean;
}

export async function renderHtml(node: JSX.Element): Promise<string> {
  // A tree without async components renders synchronously; awaiting covers both. JSX.Element types a node as an
  // escaped string, but a node holding an async component gives a promise from toString().
  return Promise.resolve<string>((await node).toString());
}

function variesOnAccept(headers: Headers): boolean {
  return (headers.get("vary") ?? "").split(",").some((v) => ["accept", "*"].includes(v.trim().toLowerCase()));
}

/** The response with `Accept` in its Vary (a copy when its headers are immutable). */
export function varyAccept(res: Response): Response {
  if (variesOnAccept(res.headers)) return res;
  try {
    res.headers.append("vary", "Accept");
    return res;
  } catch {
    const copy = new Response(res.body, res);
    copy.headers.append("vary", "Accept");
    return copy;
  }
}

export async function htmlResponse(node: JSX.Element, init: HtmlInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("content-type", "text/html; charset=utf-8");
  headers.set("cache-control", init.cacheControl ?? "no-store");
  headers.set(
    "content-security-policy",
    init.contentSecurityPolicy ??
      `default-src 'none'; style-src ${await styleHash()}; img-src 'self'; ${init.framesSelf ? "frame-src 'self'; " : ""}form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  );
  headers.set("x-content-type-options", "nosniff");
  headers.set("referrer-policy", "same-origin");
  if (init.varyAccept && !variesOnAccept(headers)) headers.append("vary", "Accept");
  const body = new TextEncoder().encode(await renderHtml(node));
  headers.set("content-length", String(body.byteLength));
  if ((init.status ?? 200) === 200) headers.set("etag", `"${await sha256Hex(body)}"`);
  return new Response(body, { status: init.status ?? 200, headers });
}
