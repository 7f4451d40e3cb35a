/** Requests as a browser sends them, and reading what a person would see in the HTML. */
import { request } from "../../support/archive.ts";

/** What Chromium sends on a navigation. */
export const BROWSER_ACCEPT =
  "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8";

export function browse(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return request(path, { headers: { accept: BROWSER_ACCEPT, ...headers } });
}

/** Accept headers of API clients (none, anything, JSON first): each must get JSON at a URL browsers get a page at. */
export const API_ACCEPTS = [
  undefined,
  "*/*",
  "application/json",
  "text/html;q=0.1, application/json",
  "text/html;q=0.5, application/json",
  "application/json, text/html;q=0.9",
];

/** A request with this Accept header, or none. */
export function requestAccepting(path: string, accept: string | undefined): Promise<Response> {
  return request(path, accept ? { headers: { accept } } : {});
}

/** The page's HTML, after checking it is HTML with the status expected. */
export async function htmlOf(res: Response, status = 200): Promise<string> {
  const html = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${html.slice(0, 400)}`);
  if (!res.headers.get("content-type")?.startsWith("text/html"))
    throw new Error(`not HTML: ${res.headers.get("content-type")}`);
  return html;
}

/** The hrefs of every link, decoded of HTML's &amp;. */
export function links(html: string): string[] {
  return [...html.matchAll(/<a [^>]*href="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
}

/** The text of the page with tags removed and whitespace folded: what a reader sees. */
export function textOf(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ");
}
