/**
 * Read-only Workers install only the brotli decoder module and LZ4
 * (`install-worker-decoder.ts`). This file installs nothing else, so it
 * checks that the smaller module decodes everything the reference encoder
 * writes (golden vectors, large windows, dictionaries, the cap) and that
 * encoding says the module is missing instead of failing obscurely.
 */
import "../../../src/codec/install-worker-decoder.ts";
import { describe, expect, it } from "vitest";
import {
  BrotliDecoder,
  brotliCompress,
  brotliDecompress,
  heapOf,
  lz4FrameDecompress,
} from "../../../src/codec/index.ts";
import { GOLDEN_INPUTS, GOLDEN_VECTORS } from "../../fixtures/codec/golden-vectors.ts";
import { expectCodecError, expectSameBytes, fromHex, utf8 } from "./support/inputs.ts";

describe("the decoder-only brotli module", () => {
  it("decodes every golden brotli vector, large-window included", () => {
    for (const v of GOLDEN_VECTORS.filter((g) => g.codec.startsWith("br"))) {
      expectSameBytes(
        brotliDecompress(fromHex(v.hex), { largeWindow: v.codec === "br-large-window" }),
        utf8(GOLDEN_INPUTS[v.input]),
        v.name,
      );
    }
  });

  it("runs on its own heap, not the full module's", () => {
    const dec = new BrotliDecoder();
    expect(heapOf("brotli-decoder").users).toBe(1);
    dec.dispose();
    expect(heapOf("brotli-decoder").users).toBe(0);
  });

  it("applies the output cap and reports truncation like the full module", () => {
    const v = GOLDEN_VECTORS.find((g) => g.name === "br html, q11 lgwin 24")!;
    const stream = fromHex(v.hex);
    expectCodecError(() => brotliDecompress(stream, { maxOutputBytes: 100 }), "OUTPUT_LIMIT");
    expectCodecError(() => brotliDecompress(stream.subarray(0, stream.byteLength - 1)), "TRUNCATED_INPUT");
  });

  it("decodes a stream that refers into a raw prefix dictionary", () => {
    // Made with the full module: brotliCompress(text, { quality: 9, lgwin: 16, dictionary }).
    const dictionary = utf8("<p>The quick brown fox jumps over the lazy dog.</p>\n");
    const text =
      "<p>The quick brown fox jumps over the lazy cat.</p>\n<p>The quick brown fox jumps over the lazy dog.</p>\n";
    const stream = fromHex("e20c008064d8185d71604c5dd97272bf00");
    expect(new TextDecoder().decode(brotliDecompress(stream, { dictionary }))).toBe(text);
    expectCodecError(() => brotliDecompress(stream), "CORRUPT_INPUT");
  });

  it("says NOT_INSTALLED when asked to encode", () => {
    const err = expectCodecError(() => brotliCompress(utf8("hello")), "NOT_INSTALLED");
    expect(err.message).toContain("brotli.wasm");
  });

  it("still has LZ4", () => {
    const v = GOLDEN_VECTORS.find((g) => g.codec === "lz4-frame" && g.input === "html")!;
    expectSameBytes(lz4FrameDecompress(fromHex(v.hex)), utf8(GOLDEN_INPUTS.html));
  });
});
