/**
 * The write request's body as the importer sizes and streams it: its size is
 * exactly that of JSON.stringify's output, in bytes of UTF-8 (and the texts'
 * own), and it parses back to the same revisions, whatever the texts hold
 * (characters JSON escapes, lone surrogates, pairs across the slices they
 * are measured and escaped in).
 */
import { describe, expect, it } from "vitest";
import { measureRevision, requestBodyBytes, requestBodyStream } from "../../../../src/tools/import/request-body.ts";
import type { NewRevision } from "../../../../src/page/types.ts";

const PIECE = 1 << 14;

function revision(id: number, text: string, extra: Partial<NewRevision> = {}): NewRevision {
  return {
    id,
    parentId: id > 1 ? id - 1 : null,
    timestamp: "2020-01-01T00:00:00Z",
    contributor: 'Ed "the" \\ editor',
    comment: "a\tb\u2028c",
    model: "wikitext",
    format: "text/x-wiki",
    text,
    sha1: null,
    ...extra,
  };
}

const TEXTS: Record<string, string> = {
  empty: "",
  plain: "hello world",
  "every control character": Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)).join(""),
  "quotes and backslashes": '"\\'.repeat(50_000),
  "U+2028, U+2029, DEL": "\u2028\u2029\u007f".repeat(10),
  "astral characters": "😀𐐀".repeat(30_000),
  "lone surrogates": "\ud800x\udc00y\udbff",
  // A pair whose high half is the last character of a piece, then one whose low half is the first.
  "surrogate pair across a piece boundary": `${"a".repeat(PIECE - 1)}😀${"b".repeat(PIECE - 1)}😀tail`,
  "lone high surrogate at a piece boundary": `${"a".repeat(PIECE - 1)}\ud83dz`,
  "lone high surrogate at the very end": `${"a".repeat(PIECE - 1)}\ud83d`,
  "three pieces of mixed text": 'é\n😀"<&>\\\u0001'.repeat(6_000),
};

async function bodyOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe("request body", () => {
  it.each(Object.entries(TEXTS))("%s: sized exactly as JSON.stringify makes it, and streamed so", async (_, text) => {
    const batch = [
      revision(1, text),
      revision(2, `${text}!`, { sha1: "0123456789abcdefghijklmnopqrstu" }),
      revision(3, "x", { format: undefined, sha1: undefined }),
    ];
    for (const r of batch)
      expect(measureRevision(r)).toEqual({
        jsonBytes: Buffer.byteLength(JSON.stringify(r)),
        textBytes: Buffer.byteLength(r.text),
      });
    const bytes = requestBodyBytes(
      batch.length,
      batch.reduce((n, r) => n + measureRevision(r).jsonBytes, 0),
    );
    expect(bytes).toBe(Buffer.byteLength(JSON.stringify({ revisions: batch })));
    const body = await bodyOf(requestBodyStream(batch, bytes));
    expect(body.byteLength).toBe(bytes);
    expect(JSON.parse(body.toString("utf8"))).toEqual(JSON.parse(JSON.stringify({ revisions: batch })));
  });

  it("an empty batch is the bare envelope", async () => {
    expect(requestBodyBytes(0, 0)).toBe(Buffer.byteLength('{"revisions":[]}'));
    expect((await bodyOf(requestBodyStream([], requestBodyBytes(0, 0)))).toString()).toBe('{"revisions":[]}');
  });

  it("a stream sized wrong errors instead of ending at another size", async () => {
    const batch = [revision(1, "text")];
    const bytes = requestBodyBytes(1, measureRevision(batch[0]!).jsonBytes);
    await expect(bodyOf(requestBodyStream(batch, bytes + 1))).rejects.toThrow(
      /is \d+ bytes, not the \d+ it was sized at/,
    );
  });
});
