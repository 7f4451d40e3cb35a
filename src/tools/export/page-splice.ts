/**
 * Splices one page's export answers into a whole-archive export. Each
 * `GET /page/{title}/export` answer is a complete document (the
 * `<mediawiki>` root, `<siteinfo>`, one `<page>`); an archive's export is
 * one root and siteinfo, then every page. So the first answer of a page
 * gives its `<page>` head and revisions, a continuation answer (the same
 * page, `Link: rel="next"`) its revisions only, and the caller closes the
 * page after the last. The bytes between are passed through as they come,
 * never parsed.
 *
 * An answer is checked at both ends: it must open with the root and
 * siteinfo this tool writes (src/origin/export-xml.ts; another export format
 * is an error, not a mixed file), and end with the page's and the root's
 * closing tags, which are held back as the body streams. A body cut off
 * (the connection dropped, the archive failed part way) never ends with
 * them, so it is refused before the page counts as written.
 *
 * @example
 * for await (const bytes of spliceAnswer(res.body, { first: true })) await out.write(bytes);
 */
import { EXPORT_TAIL, exportHead, PAGE_TAIL } from "../../origin/export-xml.ts";

const encoder = new TextEncoder();
const HEAD = encoder.encode(exportHead());
const TAIL = encoder.encode(PAGE_TAIL + EXPORT_TAIL);
/** Where a page's head ends: its `<id>` line. */
const PAGE_HEAD_END = encoder.encode("</id>\n");
/** A page head is a title (at most 255 bytes, escaped) and a namespace: anything longer is not one. */
const MAX_PAGE_HEAD_BYTES = 4096;

export class ExportAnswerError extends Error {
  override readonly name = "ExportAnswerError";
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  outer: for (let i = from; i + needle.byteLength <= haystack.byteLength; i++) {
    for (let j = 0; j < needle.byteLength; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

const equal = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((x, i) => x === b[i]);

/**
 * The bytes of one answer that go into the archive's export: from `<page>`
 * (`first`) or from the first `<revision>` (a continuation) up to, not
 * including, `</page>`.
 */
export async function* spliceAnswer(
  body: AsyncIterable<Uint8Array>,
  { first, what }: { first: boolean; what: string },
): AsyncGenerator<Uint8Array> {
  let head: Uint8Array | null = new Uint8Array(0);
  let held: Uint8Array = new Uint8Array(0);
  for await (let chunk of body) {
    if (head !== null) {
      const searched = Math.max(0, head.byteLength - PAGE_HEAD_END.byteLength);
      head = concat(head, chunk);
      const end = indexOf(head, PAGE_HEAD_END, searched);
      if (end < 0) {
        if (head.byteLength > HEAD.byteLength + MAX_PAGE_HEAD_BYTES)
          throw new ExportAnswerError(`${what}: the answer has no page head where one belongs`);
        continue;
      }
      if (end < HEAD.byteLength || !equal(head.subarray(0, HEAD.byteLength), HEAD))
        throw new ExportAnswerError(
          `${what}: the archive's export does not open as this tool's does (another export format or version?)`,
        );
      const pageHead = head.subarray(HEAD.byteLength, end + PAGE_HEAD_END.byteLength);
      if (first) yield pageHead;
      chunk = head.subarray(end + PAGE_HEAD_END.byteLength);
      head = null;
    }
    // The last TAIL.byteLength bytes seen are held back: they must be the closing tags.
    if (chunk.byteLength >= TAIL.byteLength) {
      if (held.byteLength > 0) yield held;
      yield chunk.subarray(0, chunk.byteLength - TAIL.byteLength);
      held = chunk.slice(chunk.byteLength - TAIL.byteLength);
    } else {
      const both = concat(held, chunk);
      const out = Math.max(0, both.byteLength - TAIL.byteLength);
      if (out > 0) yield both.subarray(0, out);
      held = both.slice(out);
    }
  }
  if (head !== null || !equal(held, TAIL))
    throw new ExportAnswerError(`${what}: the answer was cut off before the end of the page`);
}

/** The bytes that close a page, and then the whole export. */
export const PAGE_CLOSE = encoder.encode(PAGE_TAIL);
export const EXPORT_OPEN = HEAD;
export const EXPORT_CLOSE = encoder.encode(EXPORT_TAIL);
