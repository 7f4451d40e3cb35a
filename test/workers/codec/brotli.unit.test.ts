/**
 * brotli in workerd: round trips across qualities and windows, large-window
 * streams, streaming through TransformStreams, raw prefix dictionaries, the
 * output cap, truncation and trailing data, and golden vectors made by the
 * reference `brotli` tool (see test/fixtures/codec/make-golden-vectors.ts).
 */
import "../../../src/codec/install-worker.ts";
import { describe, expect, it } from "vitest";
import {
  BrotliDecoder,
  BrotliDictionary,
  BrotliEncoder,
  CodecError,
  brotliCompress,
  brotliCompressStream,
  brotliDecompress,
  brotliDecompressStream,
  heapOf,
} from "../../../src/codec/index.ts";
import { LIMITS } from "../../../src/limits.ts";
import { GOLDEN_INPUTS, GOLDEN_VECTORS } from "../../fixtures/codec/golden-vectors.ts";
import { BROTLI_HANDCRAFTED } from "../../fixtures/codec/handcrafted-vectors.ts";
import { prng } from "./support/prng.ts";
import {
  KiB,
  MiB,
  concat,
  expectCodecError,
  expectCodecErrorAsync,
  expectSameBytes,
  fromHex,
  hex,
  htmlLike,
  readAll,
  splitRandomly,
  streamOf,
  utf8,
  basicInputs,
  expectBadCapsRefused,
  expectEveryPrefixTruncated,
} from "./support/inputs.ts";

/** The window a stream declares in its first bits (RFC 7932 section 9.1; large-window: 0x11 then 6 bits). */
function declaredWindow(stream: Uint8Array): { lgwin: number; large: boolean } {
  const bits = stream[0]! | (stream[1]! << 8);
  if ((bits & 1) === 0) return { lgwin: 16, large: false };
  const n = (bits >> 1) & 7;
  if (n !== 0) return { lgwin: 17 + n, large: false };
  const m = (bits >> 4) & 7;
  if (m === 0) return { lgwin: 17, large: false };
  if (m === 1) return { lgwin: (bits >> 8) & 0x3f, large: true };
  return { lgwin: 8 + m, large: false };
}

function compressInPushes(
  input: Uint8Array,
  options: ConstructorParameters<typeof BrotliEncoder>[0],
  piece: number,
): Uint8Array {
  const enc = new BrotliEncoder(options);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < input.byteLength; i += piece) parts.push(...enc.push(input.subarray(i, i + piece)));
  parts.push(...enc.finish());
  return concat(parts);
}

describe("brotli round trips", () => {
  const rand = prng(0xb207);
  const inputs = basicInputs(rand, 0x2a, 20, 40);

  for (const quality of [0, 1, 5, 9, 11]) {
    for (const lgwin of [10, 16, 22, 24]) {
      it(`restores every input at quality ${quality}, lgwin ${lgwin}, and declares the window it was given`, () => {
        for (const [name, input] of Object.entries(inputs)) {
          const packed = brotliCompress(input, { quality, lgwin });
          expectSameBytes(brotliDecompress(packed), input, name);
          // q0/q1 (the one- and two-pass fast encoders) never use a window below 18.
          expect(declaredWindow(packed), name).toEqual({
            lgwin: quality <= 1 ? Math.max(lgwin, 18) : lgwin,
            large: false,
          });
        }
      });
    }
  }

  it("encodes the empty input as one byte and one byte in a few", () => {
    expect(hex(brotliCompress(new Uint8Array(0), { lgwin: 22 }))).toBe("3b");
    expect(brotliCompress(Uint8Array.of(0x2a)).byteLength).toBeLessThanOrEqual(6);
  });

  it("shrinks html-like text at the default setting and barely grows random bytes", () => {
    const page = inputs["40 KiB html-like"]!;
    expect(brotliCompress(page).byteLength).toBeLessThan(page.byteLength / 3);
    const noise = inputs["20 KiB random"]!;
    expect(brotliCompress(noise).byteLength).toBeLessThan(noise.byteLength + 16);
  });

  it("accepts the text and font modes and still round-trips", () => {
    const page = inputs["40 KiB html-like"]!;
    for (const mode of ["generic", "text", "font"] as const) {
      expectSameBytes(brotliDecompress(brotliCompress(page, { quality: 9, mode })), page, mode);
    }
  });

  it("produces the same stream whether the input arrives whole or in 1 KiB pushes", () => {
    const page = inputs["40 KiB html-like"]!;
    const whole = compressInPushes(page, { quality: 5, lgwin: 22 }, page.byteLength);
    const pushed = compressInPushes(page, { quality: 5, lgwin: 22 }, KiB);
    expectSameBytes(brotliDecompress(pushed), page);
    expect(hex(pushed)).toBe(hex(whole));
  });
});

describe("brotli large-window streams", () => {
  const page = htmlLike(prng(25), 64 * KiB);

  it("round-trips at lgwin 25..30 when both sides opt in, and says so in the header", () => {
    for (const [quality, lgwin] of [
      [5, 25],
      [5, 26],
      [9, 30],
      [11, 30],
    ] as const) {
      const packed = brotliCompress(page, { largeWindow: true, lgwin, quality });
      expect(declaredWindow(packed), `q${quality} lgwin ${lgwin}`).toEqual({ lgwin, large: true });
      expectSameBytes(brotliDecompress(packed, { largeWindow: true }), page, `q${quality} lgwin ${lgwin}`);
    }
  });

  // At q5 a window of 2^27 or more needs hash tables bigger than the 256 MiB
  // wasm memory. The encoder is built with BROTLI_ENCODER_CLEANUP_ON_OOM, so
  // it returns failure (OUT_OF_MEMORY) instead of calling exit() (a trap).
  it("reports a window too big for the wasm heap as OUT_OF_MEMORY, not a trap", () => {
    expectCodecError(() => brotliCompress(page, { largeWindow: true, lgwin: 27, quality: 5 }), "OUT_OF_MEMORY");
  });

  it("keeps working after the encoder failed on a window too big for the heap", () => {
    const err = (() => {
      try {
        brotliCompress(page, { largeWindow: true, lgwin: 30, quality: 5 });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(CodecError);
    expect(heapOf("brotli").broken).toBe(false);
    expect(heapOf("brotli").users).toBe(0);
    expectSameBytes(brotliDecompress(brotliCompress(page)), page);
  });

  it("is refused by a default (HTTP) decoder with CORRUPT_INPUT", () => {
    const packed = brotliCompress(page, { largeWindow: true, lgwin: 25 });
    const err = expectCodecError(() => brotliDecompress(packed), "CORRUPT_INPUT");
    expect(err.message).toMatch(/WINDOW_BITS/);
  });

  it("still lets a large-window decoder read ordinary streams", () => {
    expectSameBytes(brotliDecompress(brotliCompress(page), { largeWindow: true }), page);
  });
});

describe("brotli argument checks", () => {
  const one = Uint8Array.of(1);

  it("rejects qualities outside 0..11 with INVALID_ARGUMENT", () => {
    for (const quality of [-1, 12, 2.5, Number.NaN]) {
      expectCodecError(() => brotliCompress(one, { quality }), "INVALID_ARGUMENT");
      expectCodecError(() => new BrotliEncoder({ quality }), "INVALID_ARGUMENT");
    }
  });

  it("rejects windows outside 10..24, or 10..30 in large-window mode, with INVALID_ARGUMENT", () => {
    for (const lgwin of [9, 25, 16.5]) expectCodecError(() => brotliCompress(one, { lgwin }), "INVALID_ARGUMENT");
    for (const lgwin of [9, 31])
      expectCodecError(() => brotliCompress(one, { lgwin, largeWindow: true }), "INVALID_ARGUMENT");
    expectSameBytes(brotliDecompress(brotliCompress(one, { lgwin: 10 })), one);
  });

  it("rejects an unknown mode and a negative size hint with INVALID_ARGUMENT", () => {
    expectCodecError(() => brotliCompress(one, { mode: "binary" as never }), "INVALID_ARGUMENT");
    expectCodecError(() => brotliCompress(one, { sizeHint: -1 }), "INVALID_ARGUMENT");
  });

  it("rejects an output cap that is negative, fractional or above codec.maxOutputBytes", () => {
    for (const err of expectBadCapsRefused([[brotliCompress(one), brotliDecompress]]))
      expect(err.message).toContain("codec.maxOutputBytes");
  });

  it("refuses one-shot input over codec.maxOneShotInputBytes with INPUT_TOO_LARGE", () => {
    const err = expectCodecError(
      () => brotliCompress(new Uint8Array(LIMITS.codec.maxOneShotInputBytes + 1)),
      "INPUT_TOO_LARGE",
    );
    expect(err.message).toContain("codec.maxOneShotInputBytes");
  });

  it("refuses to use an encoder or decoder after it finished", () => {
    const enc = new BrotliEncoder();
    enc.push(one);
    const packed = concat(enc.finish());
    expectCodecError(() => enc.push(one), "INVALID_ARGUMENT");
    expectCodecError(() => enc.finish(), "INVALID_ARGUMENT");
    const dec = new BrotliDecoder();
    dec.push(packed);
    dec.finish();
    expectCodecError(() => dec.push(packed), "INVALID_ARGUMENT");
  });
});

describe("brotli streaming through TransformStreams", () => {
  const rand = prng(0x57ea);
  const page = htmlLike(rand, 300 * KiB);

  it("compresses and decompresses a stream of thousands of small chunks", async () => {
    const chunks = splitRandomly(rand, page, 256);
    expect(chunks.length).toBeGreaterThan(2000);
    const packed = await readAll(streamOf(chunks).pipeThrough(brotliCompressStream({ quality: 5 })));
    expectSameBytes(brotliDecompress(packed), page, "one-shot decode of the streamed encode");
    const back = await readAll(streamOf(splitRandomly(rand, packed, 64)).pipeThrough(brotliDecompressStream()));
    expectSameBytes(back, page, "streamed decode");
  });

  it("emits decoded bytes before the input ends, not only at flush", async () => {
    const packed = brotliCompress(page, { quality: 5 });
    // Half the stream arrives and the source stays open: more is "still to come".
    const source = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(packed.subarray(0, packed.byteLength >> 1)),
    });
    const reader = source.pipeThrough(brotliDecompressStream()).getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(first.value!.byteLength).toBeGreaterThan(0);
    expectSameBytes(first.value!, page.subarray(0, first.value!.byteLength), "first decoded chunk");
    await reader.cancel();
  });

  it("turns an empty stream into a valid empty brotli stream", async () => {
    const packed = await readAll(streamOf([]).pipeThrough(brotliCompressStream()));
    expect(brotliDecompress(packed).byteLength).toBe(0);
    expect((await readAll(streamOf([packed]).pipeThrough(brotliDecompressStream()))).byteLength).toBe(0);
  });

  it("errors the readable side with TRUNCATED_INPUT when the compressed stream is cut short", async () => {
    const packed = brotliCompress(page);
    await expectCodecErrorAsync(
      () => readAll(streamOf([packed.subarray(0, packed.byteLength - 10)]).pipeThrough(brotliDecompressStream())),
      "TRUNCATED_INPUT",
    );
  });

  it("errors with OUTPUT_LIMIT when the decoded stream passes the cap", async () => {
    const packed = brotliCompress(page);
    await expectCodecErrorAsync(
      () =>
        readAll(
          streamOf(splitRandomly(rand, packed, 4096)).pipeThrough(
            brotliDecompressStream({ maxOutputBytes: 100 * KiB }),
          ),
        ),
      "OUTPUT_LIMIT",
    );
  });

  it("errors with INVALID_ARGUMENT when the stream was built with bad options", async () => {
    await expectCodecErrorAsync(
      () => readAll(streamOf([page]).pipeThrough(brotliCompressStream({ quality: 42 }))),
      "INVALID_ARGUMENT",
    );
  });

  it("refuses bad options when the stream is created, before any chunk and without taking a heap", () => {
    expectCodecError(() => brotliCompressStream({ quality: 42 }), "INVALID_ARGUMENT");
    expectCodecError(() => brotliCompressStream({ lgwin: 25 }), "INVALID_ARGUMENT");
    expectCodecError(() => brotliCompressStream({ dictionary: new Uint8Array(0) }), "BAD_DICTIONARY");
    expectCodecError(() => brotliDecompressStream({ maxOutputBytes: -1 }), "INVALID_ARGUMENT");
    expectCodecError(
      () => brotliDecompressStream({ maxOutputBytes: LIMITS.codec.maxOutputBytes + 1 }),
      "INVALID_ARGUMENT",
    );
    expectCodecError(() => brotliDecompressStream({ dictionary: new Uint8Array(0) }), "BAD_DICTIONARY");
    expect(heapOf("brotli").users).toBe(0);
  });

  it("releases its wasm heap when the stream finishes, fails or is cancelled", async () => {
    const packed = brotliCompress(page);
    await readAll(streamOf([packed]).pipeThrough(brotliDecompressStream()));
    expect(heapOf("brotli").users).toBe(0);

    await readAll(streamOf([packed.subarray(0, 100)]).pipeThrough(brotliDecompressStream())).catch(() => undefined);
    expect(heapOf("brotli").users).toBe(0);

    // Cancel mid-stream: the encoder has seen input but will never finish.
    const compressor = brotliCompressStream();
    const writer = compressor.writable.getWriter();
    const reader = compressor.readable.getReader();
    const pending = reader.read(); // demand, so the write below is transformed now
    await writer.write(page.subarray(0, 1000));
    expect(heapOf("brotli").users, "the encoder holds the heap").toBe(1);
    await reader.cancel("client went away");
    expect((await pending).done).toBe(true);
    expect(heapOf("brotli").users).toBe(0);
  });
});

describe("brotli raw prefix dictionaries", () => {
  const rand = prng(0xd1c7);
  const base = htmlLike(rand, 48 * KiB);
  /** The next revision: the base with a paragraph inserted and a few words changed. */
  function revise(previous: Uint8Array, r: typeof rand): Uint8Array {
    const cut = r.int(0, previous.byteLength);
    const next = concat([
      previous.subarray(0, cut),
      utf8(`<p class="note">inserted at ${cut} by revision ${r.int(0, 1e6)}</p>\n`),
      previous.subarray(cut),
    ]);
    for (let edits = 0; edits < 3; edits++) next[r.int(0, next.byteLength - 1)] = r.int(0x61, 0x7a);
    return next;
  }

  it("makes a delta against the previous revision far smaller than compressing it alone", () => {
    const next = revise(base, rand);
    const alone = brotliCompress(next, { quality: 9 });
    const delta = brotliCompress(next, { quality: 9, dictionary: base });
    expect(delta.byteLength * 20).toBeLessThan(alone.byteLength);
    expectSameBytes(brotliDecompress(delta, { dictionary: base }), next);
  });

  it("reuses one prepared BrotliDictionary across many encodes and decodes", () => {
    const dict = new BrotliDictionary(base);
    try {
      let revision = base;
      for (let i = 0; i < 20; i++) {
        revision = revise(revision, rand);
        const delta = brotliCompress(revision, { quality: i % 2 ? 5 : 9, dictionary: dict });
        expectSameBytes(brotliDecompress(delta, { dictionary: dict }), revision, `revision ${i}`);
        // The same dictionary passed as plain bytes decodes it too.
        expectSameBytes(brotliDecompress(delta, { dictionary: base }), revision, `revision ${i}, bytes dictionary`);
      }
    } finally {
      dict.dispose();
    }
    expect(heapOf("brotli").users).toBe(0);
  });

  it("keeps working after dispose() and after its heap was retired", () => {
    const dict = new BrotliDictionary(base);
    const next = revise(base, rand);
    const before = heapOf("brotli");
    const delta = brotliCompress(next, { dictionary: dict });
    dict.dispose();
    expectSameBytes(brotliDecompress(delta, { dictionary: dict }), next, "after dispose");

    // A q9 / 16 MiB-window encoder fed 1 MiB grows the heap past codec.recycleHeapBytes
    // (to about 72 MiB), so it is retired when idle.
    const big = heapOf("brotli");
    compressInPushes(htmlLike(prng(24), MiB), { quality: 9, lgwin: 24 }, MiB);
    expect(big.peakBytes, "the encoder outgrew codec.recycleHeapBytes").toBeGreaterThan(LIMITS.codec.recycleHeapBytes);
    expect(heapOf("brotli")).not.toBe(before);
    expectSameBytes(
      brotliDecompress(brotliCompress(next, { dictionary: dict }), { dictionary: dict }),
      next,
      "on the new heap",
    );
    dict.dispose();
  });

  it("fails with CORRUPT_INPUT when the dictionary stream is decoded without its dictionary", () => {
    // Without the dictionary, a distance past the window reads brotli's built-in
    // dictionary instead; for this stream that word/transform is invalid.
    const next = revise(base, prng(1));
    const delta = brotliCompress(next, { quality: 9, dictionary: base });
    const err = expectCodecError(() => brotliDecompress(delta), "CORRUPT_INPUT");
    expect(err.message).toMatch(/DICTIONARY|TRANSFORM|DISTANCE/);
  });

  it("rejects an empty or oversized dictionary with BAD_DICTIONARY", () => {
    expectCodecError(() => new BrotliDictionary(new Uint8Array(0)), "BAD_DICTIONARY");
    const err = expectCodecError(
      () => new BrotliDictionary(new Uint8Array(LIMITS.codec.brotliMaxDictionaryBytes + 1)),
      "BAD_DICTIONARY",
    );
    expect(err.message).toContain("codec.brotliMaxDictionaryBytes");
  });
});

describe("brotli output cap", () => {
  // 64 MiB of zeros at q5, built from 1 MiB pushes: a few KiB that expand 10000x.
  const zeros = new Uint8Array(MiB);
  const enc = new BrotliEncoder({ quality: 5 });
  const parts: Uint8Array[] = [];
  for (let i = 0; i < 64; i++) parts.push(...enc.push(zeros));
  parts.push(...enc.finish());
  const bomb = concat(parts);

  it("is small enough to be a bomb", () => {
    expect(bomb.byteLength).toBeLessThan(64 * KiB);
  });

  it("stops a 64 MiB bomb at a 1 MiB cap with OUTPUT_LIMIT", () => {
    const err = expectCodecError(() => brotliDecompress(bomb, { maxOutputBytes: MiB }), "OUTPUT_LIMIT");
    expect(err.message).toContain(String(MiB));
  });

  it("stops the streaming decoder before it hands out more than the cap", () => {
    const dec = new BrotliDecoder({ maxOutputBytes: MiB });
    let emitted = 0;
    const err = expectCodecError(() => {
      for (let i = 0; i < bomb.byteLength; i += 16)
        for (const part of dec.push(bomb.subarray(i, i + 16))) emitted += part.byteLength;
    }, "OUTPUT_LIMIT");
    expect(err).toBeInstanceOf(CodecError);
    // The push that crosses the cap throws and hands out nothing of what it decoded.
    expect(emitted).toBeLessThanOrEqual(MiB);
    expect(heapOf("brotli").users).toBe(0);
  });

  it("allows output of exactly the cap and refuses one byte more", () => {
    const packed = brotliCompress(zeros);
    expect(brotliDecompress(packed, { maxOutputBytes: MiB }).byteLength).toBe(MiB);
    expectCodecError(() => brotliDecompress(packed, { maxOutputBytes: MiB - 1 }), "OUTPUT_LIMIT");
    expect(brotliDecompress(brotliCompress(new Uint8Array(0)), { maxOutputBytes: 0 }).byteLength).toBe(0);
  });
});

describe("brotli truncation and trailing data", () => {
  const page = htmlLike(prng(0x7a11), 3 * KiB);
  const packed = brotliCompress(page, { quality: 9 });

  it("fails every proper prefix with TRUNCATED_INPUT and never hands out a wrong byte", () => {
    expect(packed.byteLength).toBeGreaterThan(200);
    expectEveryPrefixTruncated("brotli", packed, page, brotliDecompress, BrotliDecoder);
  });

  it("reports bytes after the end of the stream as TRAILING_DATA", () => {
    expectCodecError(() => brotliDecompress(concat([packed, Uint8Array.of(0)])), "TRAILING_DATA");
    expectCodecError(() => brotliDecompress(concat([packed, packed])), "TRAILING_DATA");
    const dec = new BrotliDecoder();
    expectSameBytes(concat(dec.push(packed)), page);
    expectCodecError(() => dec.push(Uint8Array.of(0x3b)), "TRAILING_DATA");
  });

  it("accepts an empty push after the end of the stream", () => {
    const dec = new BrotliDecoder();
    dec.push(packed);
    expect(dec.push(new Uint8Array(0))).toEqual([]);
    expect(dec.finished).toBe(true);
    dec.finish();
  });
});

describe("brotli golden vectors", () => {
  const vectors = GOLDEN_VECTORS.filter((v) => v.codec === "br" || v.codec === "br-large-window");

  for (const v of vectors) {
    const input = utf8(GOLDEN_INPUTS[v.input]);
    const stream = fromHex(v.hex);
    const large = v.codec === "br-large-window";

    it(`decodes \`${v.command}\` output (${v.name})`, () => {
      expectSameBytes(brotliDecompress(stream, { largeWindow: large }), input);
      if (large) expectCodecError(() => brotliDecompress(stream), "CORRUPT_INPUT");
    });

    it(`encodes ${v.name} to exactly the reference tool's bytes`, () => {
      const quality = Number(/-q (\d+)/.exec(v.command)?.[1] ?? 11);
      const lgwin = large
        ? Number(/--large_window=(\d+)/.exec(v.command)![1])
        : Number(/-w (\d+)/.exec(v.command)?.[1] ?? 24);
      expect(hex(brotliCompress(input, { quality, lgwin, largeWindow: large }))).toBe(v.hex);
    });
  }

  for (const v of BROTLI_HANDCRAFTED) {
    it(`decodes the hand-written stream: ${v.name}`, () => {
      expect(new TextDecoder().decode(brotliDecompress(fromHex(v.hex)))).toBe(v.text);
    });
  }

  it("skips a metadata block's bytes instead of emitting them", () => {
    const withMeta = fromHex(BROTLI_HANDCRAFTED.find((v) => v.name.startsWith("metadata block then"))!.hex);
    expect(hex(brotliDecompress(withMeta))).toBe(hex(utf8("hi")));
  });
});
