/**
 * Picks a content coding from `Accept-Encoding` (RFC 9110 §12.5.3): q-values
 * honoured, `q=0` refuses a coding, `*` stands for every coding not named,
 * and `identity` is acceptable unless refused by name or by `*;q=0`. Among
 * equally weighted codings the server's order decides (smallest first), so
 * `br, gzip` gets br whichever the client listed first.
 *
 * @example
 * chooseCoding("gzip;q=0.5, br", ["br", "gzip", "identity"]);   // "br"
 * chooseCoding("identity;q=0", ["identity"]);                    // undefined: answer 406
 */
import { parseAccept } from "hono/utils/accept";

/** The codings the archive can send, from most to least preferred at equal weight. */
export type Coding = "dcb" | "br" | "gzip" | "identity";

/**
 * The client's own Accept-Encoding. Cloudflare (and wrangler dev, which
 * mimics it) hands a Worker `Accept-Encoding: br, gzip` whatever the client
 * sent, and keeps the client's header in `request.cf.clientAcceptEncoding`
 * ("" when it sent none); a request made in-process has only the header.
 */
export function clientAcceptEncoding(request: Request): string | null {
  const cf = (request as Request & { cf?: { clientAcceptEncoding?: string } }).cf;
  return cf?.clientAcceptEncoding ?? request.headers.get("accept-encoding");
}

/** The weight a client gives `coding`; 0 means refused. */
export function codingWeight(header: string | null | undefined, coding: Coding): number {
  // No header: any coding is acceptable, but nothing says the client can decode one, so only identity is offered.
  if (header === null || header === undefined) return coding === "identity" ? 1 : 0;
  const accepts = parseAccept(header);
  const named = (name: string) => accepts.find((a) => a.type.toLowerCase() === name);
  // x-gzip is gzip's old name (RFC 9110 §8.4.1.3).
  const explicit = named(coding) ?? (coding === "gzip" ? named("x-gzip") : undefined);
  if (explicit) return explicit.q;
  const star = named("*");
  if (star) return star.q;
  return coding === "identity" ? 1 : 0;
}

/**
 * The best coding of `offered` (in server preference order) the client
 * accepts, or undefined when it refuses all of them, identity included.
 */
export function chooseCoding<C extends Coding>(
  header: string | null | undefined,
  offered: readonly C[],
): C | undefined {
  let best: { coding: C; q: number } | undefined;
  for (const coding of offered) {
    const q = codingWeight(header, coding);
    if (q > 0 && (!best || q > best.q)) best = { coding, q };
  }
  return best?.coding;
}
