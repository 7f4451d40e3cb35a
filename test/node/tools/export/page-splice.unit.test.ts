/**
 * Splicing page answers into one export (src/tools/export/page-splice.ts):
 * the same bytes whatever the chunking, the page head only from a page's
 * first answer, and an answer cut anywhere before its last byte refused,
 * so a page never counts as written without its end.
 */
import { describe, expect, it } from "vitest";
import { EXPORT_TAIL, exportHead, pageHead, PAGE_TAIL } from "../../../../src/origin/export-xml.ts";
import { ExportAnswerError, spliceAnswer } from "../../../../src/tools/export/page-splice.ts";

const encoder = new TextEncoder();
const revisions = `    <revision>\n      <id>1</id>\n      <text xml:space="preserve">a &amp; b</text>\n    </revision>\n`;
const answer = encoder.encode(exportHead() + pageHead("Splice me", 0, 1) + revisions + PAGE_TAIL + EXPORT_TAIL);

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.slice(at, at + size);
}

async function spliced(body: AsyncIterable<Uint8Array>, first: boolean): Promise<string> {
  const out: Uint8Array[] = [];
  for await (const bytes of spliceAnswer(body, { first, what: "test" })) out.push(bytes);
  return Buffer.concat(out).toString("utf8");
}

describe("spliceAnswer", () => {
  it("passes a page's head and revisions through, whatever the chunk sizes, and a continuation's revisions only", async () => {
    for (const size of [1, 2, 7, 64, 1000, answer.byteLength]) {
      expect(await spliced(chunked(answer, size), true), `chunks of ${size}`).toBe(
        pageHead("Splice me", 0, 1) + revisions,
      );
      expect(await spliced(chunked(answer, size), false), `chunks of ${size}`).toBe(revisions);
    }
  });

  it("refuses an answer cut off at any byte before its end", async () => {
    for (let cut = 0; cut < answer.byteLength; cut++) {
      await expect(spliced(chunked(answer.subarray(0, cut), 64), true), `cut at ${cut}`).rejects.toBeInstanceOf(
        ExportAnswerError,
      );
    }
  });

  it("refuses an answer that does not open as this tool's exports do", async () => {
    const other = encoder.encode(
      `<mediawiki version="0.10">\n` + pageHead("X", 0, 1) + revisions + PAGE_TAIL + EXPORT_TAIL,
    );
    await expect(spliced(chunked(other, 100), true)).rejects.toThrow(/does not open as this tool's does/);
  });
});
