/**
 * A write request's body, `{"revisions":[r1,r2,…]}`, sized exactly and
 * streamed. Its size in bytes of UTF-8 is what the archive counts against
 * `storage.maxRequestBytes`, and JSON escaping can make it twice the texts it
 * carries (quotes, backslashes and line breaks take two bytes). Texts are
 * measured and escaped 16 Ki characters at a time and streamed in chunks of
 * about 256 Ki characters (one read and write per chunk at either end, where
 * 16 Ki cost the Worker seconds of reads per import of a long history), so a
 * 16 MiB revision never becomes one 32 MiB JSON string (64 MiB in
 * memory if it holds a single non-Latin-1 character), nor a 32 MiB buffer
 * that fetch would copy, nor even a flat copy of itself.
 *
 * @example
 * const bytes = requestBodyBytes(batch.length, sum(batch.map((r) => measureRevision(r).jsonBytes)));
 * bytes === Buffer.byteLength(JSON.stringify({ revisions: batch })); // true
 * await fetch(url, { method: "POST", body: requestBodyStream(batch, bytes), duplex: "half" });
 */
import type { NewRevision } from "../../page/types.ts";

const ENVELOPE = ['{"revisions":[', "]}"] as const;
const ENVELOPE_BYTES = ENVELOPE[0].length + ENVELOPE[1].length;
const PIECE_CHARS = 1 << 14;
/** Characters of JSON sent as one chunk of the body, at least (pieces are joined until they reach it). */
const CHUNK_CHARS = 1 << 18;

/**
 * The text in slices of 16 Ki characters, never ending between the two
 * halves of a surrogate pair (JSON.stringify would escape each half on its
 * own, Buffer.byteLength count each as 3 bytes). Slicing copies only the
 * slice: a text the reader left as a concatenation of runs stays one.
 */
function* slices(text: string): Generator<string> {
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + PIECE_CHARS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    yield text.slice(at, end);
    at = end;
  }
}

/**
 * The revision's JSON in pieces: its other fields as JSON.stringify writes
 * them, then `"text"` last, escaped slice by slice by JSON.stringify. The
 * pieces make exactly its output, but for the order of the keys.
 */
function* jsonPieces(revision: NewRevision): Generator<string> {
  const { text, ...rest } = revision;
  yield `${JSON.stringify(rest).slice(0, -1)},"text":"`;
  for (const slice of slices(text)) yield JSON.stringify(slice).slice(1, -1);
  yield '"}';
}

/** Bytes of `JSON.stringify(revision)` in UTF-8, and of its text alone. */
export function measureRevision(revision: NewRevision): { jsonBytes: number; textBytes: number } {
  let jsonBytes = 0;
  for (const piece of jsonPieces(revision)) jsonBytes += Buffer.byteLength(piece);
  let textBytes = 0;
  for (const slice of slices(revision.text)) textBytes += Buffer.byteLength(slice);
  return { jsonBytes, textBytes };
}

/** Bytes of the body carrying `count` revisions whose JSON comes to `revisionBytes` in all. */
export function requestBodyBytes(count: number, revisionBytes: number): number {
  return ENVELOPE_BYTES + revisionBytes + Math.max(0, count - 1);
}

/**
 * The body, streamed: each piece encoded when the connection takes it. It
 * errors rather than end at another size than `bytes`, its size from
 * {@link requestBodyBytes}.
 */
export function requestBodyStream(revisions: readonly NewRevision[], bytes: number): ReadableStream<Uint8Array> {
  function* pieces(): Generator<string> {
    yield ENVELOPE[0];
    for (let i = 0; i < revisions.length; i++) {
      if (i > 0) yield ",";
      yield* jsonPieces(revisions[i]!);
    }
    yield ENVELOPE[1];
  }
  const source = pieces();
  const encoder = new TextEncoder();
  let sent = 0;
  let done = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      // Pieces joined up to CHUNK_CHARS: each chunk costs both ends a read and a write of its own.
      let text = "";
      while (!done && text.length < CHUNK_CHARS) {
        const next = source.next();
        if (next.done) done = true;
        else text += next.value;
      }
      if (text.length > 0) {
        const chunk = encoder.encode(text);
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      }
      if (!done) return;
      if (sent !== bytes)
        controller.error(new Error(`request body is ${sent} bytes, not the ${bytes} it was sized at`));
      else controller.close();
    },
  });
}
