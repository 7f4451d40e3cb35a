/**
 * RFC 9842 Compression Dictionary Transport, the header side. A revision
 * response offers itself as a dictionary for its page's latest and other
 * revisions (`Use-As-Dictionary: match="/page/{title}{/*}?"`); a later request
 * names the one it holds by SHA-256 (`Available-Dictionary: :base64:`, a
 * structured-field byte sequence) and offers `dcb` in Accept-Encoding.
 *
 * @example
 * useAsDictionary("Help:Contents/Editing");   // 'match="/page/Help\\:Contents%2FEditing{/*}?"'
 * offeredDictionary(request);                 // "9f86d0…" (hex) or undefined
 */
import { toHex } from "../lib/digests.ts";
import { titleSegment } from "../page/page-ref.ts";
import { clientAcceptEncoding, codingWeight } from "./accept-encoding.ts";

/** URL pattern syntax characters (a title's `:` would start a named group), escaped with a backslash. */
const PATTERN_SYNTAX = /[\\:*?+(){}]/g;

/**
 * The Use-As-Dictionary value for a page: its latest (`/page/{title}`, with or without `?at=`) and every
 * revision URL of that page (`/page/{title}/…`), and nothing else: `{/*}?` is an optional URL-pattern group.
 */
export function useAsDictionary(pageKey: string): string {
  const pattern = `/page/${titleSegment(pageKey).replace(PATTERN_SYNTAX, "\\$&")}{/*}?`;
  // A structured-field string escapes backslash and quote.
  return `match="${pattern.replace(/[\\"]/g, "\\$&")}"`;
}

const SF_BINARY = /^\s*:([A-Za-z0-9+/]*={0,2}):\s*$/;

/** The SHA-256 (hex) an `Available-Dictionary` value names, or undefined if it is not one. */
export function parseAvailableDictionary(value: string | null): string | undefined {
  const match = value === null ? null : SF_BINARY.exec(value);
  if (!match) return undefined;
  let bytes: string;
  try {
    bytes = atob(match[1]!);
  } catch {
    return undefined;
  }
  if (bytes.length !== 32) return undefined;
  return toHex(Uint8Array.from(bytes, (ch) => ch.charCodeAt(0)));
}

/** The dictionary a request offers to decode dcb against: only when it also accepts dcb. */
export function offeredDictionary(request: Request): string | undefined {
  if (codingWeight(clientAcceptEncoding(request), "dcb") <= 0) return undefined;
  return parseAvailableDictionary(request.headers.get("available-dictionary"));
}
