/**
 * Interop with Node's zlib on real corpus files: its brotli (reference C
 * brotli 1.1.0) and gzip/deflate (zlib) read what we write and we read what
 * they write. Our brotli is the reference encoder too (1.2.1, in wasm), and
 * empirically writes byte-identical streams at the same quality, window,
 * mode and size hint, so that is asserted as well.
 */
import "../../../src/codec/install-node.ts";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import {
  brotliCompressSync,
  brotliDecompressSync,
  constants as z,
  createBrotliCompress,
  deflateRawSync,
  gunzipSync,
  gzipSync,
  inflateRawSync,
} from "node:zlib";
import { expect, it } from "vitest";
import {
  brotliCompress,
  brotliDecompress,
  deflateCompress,
  deflateDecompress,
  gzipCompress,
  gzipDecompress,
  type BrotliMode,
} from "../../../src/codec/index.ts";
import { describeNeeding } from "../support/requirements.ts";
import { HAVE_CORPUS, NO_CORPUS, historyExcerpt, webSample, type CorpusFile } from "./support/corpus.ts";
import { bufferOf, sameBytes } from "./support/bytes.ts";

const MODES: Record<BrotliMode, number> = {
  generic: z.BROTLI_MODE_GENERIC,
  text: z.BROTLI_MODE_TEXT,
  font: z.BROTLI_MODE_FONT,
};

function nodeBrotli(
  input: Uint8Array,
  quality: number,
  lgwin: number,
  mode: BrotliMode = "generic",
  largeWindow = false,
): Buffer {
  return brotliCompressSync(input, {
    params: {
      [z.BROTLI_PARAM_QUALITY]: quality,
      [z.BROTLI_PARAM_LGWIN]: lgwin,
      [z.BROTLI_PARAM_MODE]: MODES[mode],
      [z.BROTLI_PARAM_SIZE_HINT]: input.byteLength,
      [z.BROTLI_PARAM_LARGE_WINDOW]: largeWindow ? 1 : 0,
    },
  });
}

const hexOf = (b: Uint8Array) => bufferOf(b).toString("hex");

describeNeeding(NO_CORPUS, "Node's zlib <-> ours on corpus files", () => {
  const files: CorpusFile[] = HAVE_CORPUS ? [...webSample(), historyExcerpt()] : [];
  // q11 in wasm runs at about 1 MB/s; keep it to the files under 100 KB.
  const small = files.filter((f) => f.bytes.byteLength < 100_000);

  for (const [quality, lgwin] of [
    [5, 22],
    [9, 24],
    [11, 24],
  ] as const) {
    it(`writes byte-identical brotli to Node's at q${quality}/lgwin ${lgwin}, and each side decodes the other`, () => {
      for (const f of quality === 11 ? small : files) {
        const ours = brotliCompress(f.bytes, { quality, lgwin });
        const theirs = nodeBrotli(f.bytes, quality, lgwin);
        expect(sameBytes(brotliDecompressSync(ours), f.bytes), `${f.name}: Node decodes ours`).toBe(true);
        expect(sameBytes(brotliDecompress(theirs), f.bytes), `${f.name}: we decode Node's`).toBe(true);
        expect(ours.byteLength, `${f.name}: size`).toBe(theirs.byteLength);
        expect(hexOf(ours) === hexOf(theirs), `${f.name}: identical bytes`).toBe(true);
      }
    }, 60_000);
  }

  it("matches Node's brotli byte for byte in text and font modes and in large-window mode", () => {
    for (const f of small.slice(0, 6)) {
      for (const mode of ["text", "font"] as const) {
        expect(hexOf(brotliCompress(f.bytes, { quality: 9, lgwin: 22, mode })), `${f.name} ${mode}`).toBe(
          hexOf(nodeBrotli(f.bytes, 9, 22, mode)),
        );
      }
      const large = brotliCompress(f.bytes, { quality: 5, lgwin: 26, largeWindow: true });
      expect(hexOf(large), `${f.name} large window`).toBe(hexOf(nodeBrotli(f.bytes, 5, 26, "generic", true)));
      expect(
        sameBytes(brotliDecompressSync(large, { params: { [z.BROTLI_DECODER_PARAM_LARGE_WINDOW]: 1 } }), f.bytes),
      ).toBe(true);
    }
  });

  it("decodes Node's streaming brotli encoder output, flushed in many small pieces", async () => {
    const history = files.at(-1)!;
    const pieces = Array.from({ length: Math.ceil(history.bytes.byteLength / 10_000) }, (_, i) =>
      history.bytes.subarray(i * 10_000, (i + 1) * 10_000),
    );
    const packed = await buffer(
      Readable.from(pieces).pipe(
        createBrotliCompress({ params: { [z.BROTLI_PARAM_QUALITY]: 4 }, flush: z.BROTLI_OPERATION_FLUSH }),
      ),
    );
    expect(sameBytes(brotliDecompress(packed), history.bytes)).toBe(true);
  });

  it("reads Node's gzip and raw deflate at levels 1, 6 and 9, and Node reads ours", () => {
    for (const f of files) {
      for (const level of [1, 6, 9]) {
        const trips: [string, (bytes: Uint8Array) => Uint8Array][] = [
          ["Node gzip", (b) => gzipDecompress(gzipSync(b, { level }))],
          ["Node deflateRaw", (b) => deflateDecompress(deflateRawSync(b, { level }))],
          ["our gzip", (b) => gunzipSync(gzipCompress(b, { level }))],
          ["our deflate", (b) => inflateRawSync(deflateCompress(b, { level }))],
        ];
        for (const [what, trip] of trips)
          expect(sameBytes(trip(f.bytes), f.bytes), `${f.name}: ${what} ${level}`).toBe(true);
      }
    }
  }, 30_000);
});
