/**
 * Deterministic test inputs and small assertion helpers for the codec tests.
 * Workers tests cannot read the shared corpus, so "realistic" input here is
 * generated: HTML-like markup built from a fixed vocabulary, which compresses
 * about as well as real pages do (5-8x at brotli q5).
 *
 * @example
 * const page = htmlLike(prng(7), 64 * 1024);
 * const err = expectCodecError(() => brotliDecompress(page), "CORRUPT_INPUT");
 */
import { describe, expect, it } from "vitest";
import { CodecError, heapOf, type CodecErrorCodeName } from "../../../../src/codec/index.ts";
import { LIMITS } from "../../../../src/limits.ts";
import type { Prng } from "./prng.ts";

export const KiB = 1024;
export const MiB = 1024 * 1024;

const encoder = new TextEncoder();
export const utf8 = (text: string): Uint8Array => encoder.encode(text);
export const fromUtf8 = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

const WORDS = (
  "the archive page revision edge worker cache tier brotli window dictionary delta stream " +
  "quality lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor " +
  "specification element attribute algorithm request response header body fetch navigate " +
  "caf\u00e9 na\u00efve \u00fcber r\u00e9sum\u00e9 \u65e5\u672c\u8a9e"
).split(" ");
const TAGS = ["p", "div", "span", "a", "li", "code", "em", "td", "section"];
const CLASSES = ["note", "example", "issue", "algorithm", "domintro", "idl", "toc", "secno"];

/** One HTML-ish line: a tag with attributes, 3-24 words, a number, a closing tag. */
function htmlLine(rand: Prng): string {
  const tag = rand.pick(TAGS);
  let line = `<${tag} class="${rand.pick(CLASSES)}" id="s-${rand.int(0, 9999)}">`;
  const words = rand.int(3, 24);
  for (let i = 0; i < words; i++) line += rand.pick(WORDS) + (rand.next() < 0.1 ? ", " : " ");
  return `${line}${rand.int(0, 99999)}</${tag}>\n`;
}

/** Fills `out` with HTML-like text (the last character may be cut mid-sequence). */
export function fillHtmlLike(rand: Prng, out: Uint8Array): Uint8Array {
  let i = 0;
  while (i < out.byteLength) {
    const line = htmlLine(rand);
    // Encoding in place saves a third of the time on the 25 MiB inputs; only
    // the last line, which encodeInto will not cut mid-character, is copied.
    const { read, written } = encoder.encodeInto(line, out.subarray(i));
    if (read === line.length) {
      i += written;
      continue;
    }
    out.set(utf8(line).subarray(0, out.byteLength - i), i);
    i = out.byteLength;
  }
  return out;
}

export function htmlLike(rand: Prng, length: number): Uint8Array {
  return fillHtmlLike(rand, new Uint8Array(length));
}

/** A phrase repeated with rare one-byte edits: long matches, like successive revisions. */
export function repeatedText(rand: Prng, length: number): Uint8Array {
  const phrase = utf8(`${htmlLine(rand)}${htmlLine(rand)}`);
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = phrase[i % phrase.byteLength]!;
  for (let edits = Math.floor(length / 4096); edits > 0; edits--) out[rand.int(0, length - 1)] = rand.int(32, 126);
  return out;
}

/** Runs of a few byte values: compresses very well, exercises long copies. */
export function lowEntropy(rand: Prng, length: number): Uint8Array {
  const out = new Uint8Array(length);
  const alphabet = [0, 1, 0x20, 0xff];
  for (let i = 0; i < length;) {
    const run = rand.int(1, 300);
    out.fill(rand.pick(alphabet), i, Math.min(length, i + run));
    i += run;
  }
  return out;
}

export type ContentKind = "random" | "html" | "repeated" | "low-entropy";
export const CONTENT_KINDS: readonly ContentKind[] = ["random", "html", "repeated", "low-entropy"];

export function makeContent(kind: ContentKind, rand: Prng, length: number): Uint8Array {
  switch (kind) {
    case "random":
      return rand.bytes(length);
    case "html":
      return htmlLike(rand, length);
    case "repeated":
      return repeatedText(rand, length);
    case "low-entropy":
      return lowEntropy(rand, length);
  }
}

/**
 * The inputs every codec's round trips start from, named by what and how
 * big: nothing, one byte, random bytes and HTML-like text (sizes in KiB).
 */
export function basicInputs(
  rand: Prng,
  oneByte: number,
  randomKiB: number,
  htmlKiB: number,
): Record<string, Uint8Array> {
  return {
    empty: new Uint8Array(0),
    "one byte": Uint8Array.of(oneByte),
    [`${randomKiB} KiB random`]: rand.bytes(randomKiB * KiB),
    [`${htmlKiB} KiB html-like`]: htmlLike(rand, htmlKiB * KiB),
  };
}

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function fromHex(text: string): Uint8Array {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.byteLength;
  }
  return out;
}

/** Byte equality without handing vitest two multi-megabyte arrays to diff. */
export function sameBytes(actual: Uint8Array, expected: Uint8Array): boolean {
  if (actual.byteLength !== expected.byteLength) return false;
  for (let i = 0; i < actual.byteLength; i++) if (actual[i] !== expected[i]) return false;
  return true;
}

/** Asserts equal bytes with a short message (length and first difference) instead of a giant diff. */
export function expectSameBytes(actual: Uint8Array, expected: Uint8Array, context = ""): void {
  if (sameBytes(actual, expected)) return;
  let i = 0;
  while (i < Math.min(actual.byteLength, expected.byteLength) && actual[i] === expected[i]) i++;
  expect.fail(
    `${context ? `${context}: ` : ""}got ${actual.byteLength} bytes, expected ${expected.byteLength}; first difference at byte ${i}`,
  );
}

/** Runs `body`, which must throw a CodecError with `code`; returns the error. */
export function expectCodecError(body: () => unknown, code: CodecErrorCodeName): CodecError {
  let result: unknown;
  try {
    result = body();
  } catch (err) {
    if (!(err instanceof CodecError)) expect.fail(`expected CodecError ${code}, got ${String(err)}`);
    expect(err.code, err.message).toBe(code);
    return err;
  }
  const what = result instanceof Uint8Array ? `${result.byteLength} bytes` : String(result);
  return expect.fail(`expected CodecError ${code}, but it returned ${what}`);
}

export async function expectCodecErrorAsync(
  body: () => Promise<unknown>,
  code: CodecErrorCodeName,
): Promise<CodecError> {
  let result: unknown;
  try {
    result = await body();
  } catch (err) {
    if (!(err instanceof CodecError)) expect.fail(`expected CodecError ${code}, got ${String(err)}`);
    expect(err.code, err.message).toBe(code);
    return err;
  }
  const what = result instanceof Uint8Array ? `${result.byteLength} bytes` : String(result);
  return expect.fail(`expected CodecError ${code}, but it resolved to ${what}`);
}

/** Output caps every decoder refuses with INVALID_ARGUMENT (resolveOutputCap): above codec.maxOutputBytes, negative, fractional. */
export const BAD_OUTPUT_CAPS: readonly number[] = [LIMITS.codec.maxOutputBytes + 1, -1, 2.5];

/** Asserts that each decoder, given its well-formed `packed` input, refuses every bad cap with INVALID_ARGUMENT; returns the errors. */
export function expectBadCapsRefused(
  cases: ReadonlyArray<
    [packed: Uint8Array, decompress: (packed: Uint8Array, options: { maxOutputBytes: number }) => unknown]
  >,
): CodecError[] {
  return BAD_OUTPUT_CAPS.flatMap((maxOutputBytes) =>
    cases.map(([packed, decompress]) =>
      expectCodecError(() => decompress(packed, { maxOutputBytes }), "INVALID_ARGUMENT"),
    ),
  );
}

/** The test every codec's decoders share: `<codec> output cap argument` refuses every bad cap (inputs made when the test runs). */
export function describeOutputCapArgument(
  codec: string,
  cases: () => Parameters<typeof expectBadCapsRefused>[0],
): void {
  describe(`${codec} output cap argument`, () => {
    it("rejects a cap above codec.maxOutputBytes, negative or fractional, with INVALID_ARGUMENT", () => {
      expectBadCapsRefused(cases());
    });
  });
}

/**
 * Cuts `packed` at every length short of the whole: the one-shot decoder
 * must fail with TRUNCATED_INPUT, and a streaming decoder fed the cut
 * stream may hand out only a prefix of `original` before its finish fails
 * with TRUNCATED_INPUT. None of them leaves the codec's heap in use.
 */
export function expectEveryPrefixTruncated(
  codec: "brotli" | "lz4",
  packed: Uint8Array,
  original: Uint8Array,
  decompress: (bytes: Uint8Array) => unknown,
  Decoder: new () => { push(bytes: Uint8Array): Uint8Array[]; finish(): unknown },
): void {
  for (let n = 0; n < packed.byteLength; n++) {
    expectCodecError(() => decompress(packed.subarray(0, n)), "TRUNCATED_INPUT");
    const dec = new Decoder();
    const partial = concat(dec.push(packed.subarray(0, n)));
    expectSameBytes(partial, original.subarray(0, partial.byteLength), `prefix ${n}`);
    expectCodecError(() => dec.finish(), "TRUNCATED_INPUT");
  }
  expect(heapOf(codec).users).toBe(0);
}

/** A ReadableStream that yields `chunks` one at a time. */
export function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  });
}

/** Splits `bytes` into pieces of random length 1..maxPiece. */
export function splitRandomly(rand: Prng, bytes: Uint8Array, maxPiece: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.byteLength;) {
    const n = rand.int(1, maxPiece);
    pieces.push(bytes.subarray(i, i + n));
    i += n;
  }
  return pieces;
}

export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return concat(parts);
    parts.push(value);
  }
}
