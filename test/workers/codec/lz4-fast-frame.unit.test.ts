/**
 * LZ4 frames through our own decoder (src/codec/lz4/fast-frame.ts): every
 * descriptor layout decodes on the fast path to the right bytes, and
 * whatever it refuses falls back to LZ4F with LZ4F's errors, checksum
 * failures still CHECKSUM_MISMATCH.
 */
import "../../../src/codec/install-worker.ts";
import { describe, expect, it } from "vitest";
import { lz4FrameCompress, lz4FrameDecompress } from "../../../src/codec/index.ts";
import { FAST_FRAME_DICT_ID, FAST_FRAME_TOO_BIG, decodeFrameFast } from "../../../src/codec/lz4/fast-frame.ts";
import { LZ4_VARIANTS } from "../../../src/codec/lz4/fast-block.ts";
import { LIMITS } from "../../../src/limits.ts";
import { GOLDEN_INPUTS, GOLDEN_VECTORS } from "../../fixtures/codec/golden-vectors.ts";
import { buildFrame, frameLayout, xxh32, type FrameLayout } from "./support/lz4-frames.ts";
import { literalsAndMatches, shortPeriods } from "./support/lz4-blocks.ts";
import { prng } from "./support/prng.ts";
import { KiB, MiB, concat, expectCodecError, expectSameBytes, fromHex, htmlLike, utf8 } from "./support/inputs.ts";

const CAP = LIMITS.codec.maxOutputBytes;
const layouts: FrameLayout[] = [];
for (const independent of [false, true]) {
  for (const blockChecksum of [false, true]) {
    for (const contentSize of [false, true]) {
      for (const contentChecksum of [false, true])
        layouts.push({ independent, blockChecksum, contentSize, contentChecksum });
    }
  }
}
const describeLayout = (l: FrameLayout) =>
  `${l.independent ? "independent" : "linked"}, block checksums ${l.blockChecksum ? "on" : "off"}, content size ${l.contentSize ? "on" : "off"}, content checksum ${l.contentChecksum ? "on" : "off"}`;

function fastBytes(frame: Uint8Array, variant = 2, cap = CAP): Uint8Array {
  const r = decodeFrameFast(frame, cap, variant);
  if (!r.ok) throw new Error(`the fast path refused the frame (code ${r.code})`);
  return r.bytes;
}

describe("LZ4 frames through the fast decoder", () => {
  it("checks its own XXH32 against the xxHash test vectors", () => {
    expect(xxh32(new Uint8Array(0))).toBe(0x02cc5d05);
    expect(xxh32(utf8("a"))).toBe(0x550d7456);
    expect(xxh32(utf8("abc"))).toBe(0x32d153ff);
    expect(xxh32(utf8("Nobody inspects the spammish repetition"))).toBe(0xe2293b2f);
  });

  for (const layout of layouts) {
    it(`decodes ${describeLayout(layout)} on the fast path, in every variant`, () => {
      const rand = prng(layouts.indexOf(layout) + 1);
      const inputs = [
        new Uint8Array(0),
        utf8("x"),
        htmlLike(rand, 200 * KiB + 17),
        shortPeriods(rand, 150 * KiB),
        literalsAndMatches(rand, 300 * KiB),
      ];
      for (const input of inputs) {
        const frame = buildFrame(input, { ...layout, raw: (i) => i % 3 === 2 });
        for (let v = 0; v < LZ4_VARIANTS.length; v++)
          expectSameBytes(fastBytes(frame, v), input, `${input.byteLength} bytes, ${LZ4_VARIANTS[v]}`);
        expectSameBytes(lz4FrameDecompress(frame), input);
      }
    });
  }

  it("decodes lz4FrameCompress output of every block size and level on the fast path", () => {
    const input = htmlLike(prng(40), 5 * MiB + 123);
    for (const blockSize of [65536, 262144, 1048576, 4194304] as const) {
      for (const level of [0, 9])
        expectSameBytes(fastBytes(lz4FrameCompress(input, { blockSize, level })), input, `${blockSize} level ${level}`);
    }
  });

  it("grows its output for a long frame without a content size", () => {
    const input = shortPeriods(prng(41), 9 * MiB);
    const frame = buildFrame(input, frameLayout({ contentChecksum: true, blockSize: 1048576 }));
    expectSameBytes(fastBytes(frame), input);
  });

  it("decodes the golden frames the lz4 tool wrote on the fast path", () => {
    for (const v of GOLDEN_VECTORS.filter((g) => g.codec === "lz4-frame")) {
      const frame = fromHex(v.hex);
      const fast = decodeFrameFast(frame, CAP, 2);
      // Skippable and legacy frames are LZ4F's to handle.
      if (frame[0] === 0x04) expectSameBytes(fastBytes(frame), utf8(GOLDEN_INPUTS[v.input]), v.command);
      else expect(fast.ok, v.command).toBe(false);
    }
  });

  it("leaves frames over the cap or codec.lz4OneShotFrameBytes to LZ4F, which names OUTPUT_LIMIT", () => {
    const input = htmlLike(prng(42), 300 * KiB);
    const frame = lz4FrameCompress(input, { blockSize: 65536 });
    expect(decodeFrameFast(frame, input.byteLength - 1, 2)).toEqual({ ok: false, code: FAST_FRAME_TOO_BIG });
    expectCodecError(() => lz4FrameDecompress(frame, { maxOutputBytes: input.byteLength - 1 }), "OUTPUT_LIMIT");
    const unsized = buildFrame(input, frameLayout({ independent: true }));
    expect(decodeFrameFast(unsized, 100 * KiB, 2).ok).toBe(false);
    expectCodecError(() => lz4FrameDecompress(unsized, { maxOutputBytes: 100 * KiB }), "OUTPUT_LIMIT");
    expectSameBytes(lz4FrameDecompress(unsized, { maxOutputBytes: input.byteLength }), input);
  });

  it("refuses a corrupt content, block or header checksum, and LZ4F reports CHECKSUM_MISMATCH", () => {
    const input = htmlLike(prng(43), 100 * KiB);
    const frame = buildFrame(
      input,
      frameLayout({ independent: true, blockChecksum: true, contentSize: true, contentChecksum: true }),
    );
    const cases: [string, number][] = [
      ["content checksum", frame.byteLength - 1],
      ["block checksum", 15 + 4 + (new DataView(frame.buffer).getUint32(15, true) & 0x7fffffff)],
      ["header checksum", 14],
    ];
    for (const [what, at] of cases) {
      const bad = frame.slice();
      bad[at]! ^= 0x10;
      expect(decodeFrameFast(bad, CAP, 2).ok, what).toBe(false);
      expectCodecError(() => lz4FrameDecompress(bad), "CHECKSUM_MISMATCH");
    }
    // A changed byte in a stored block with no block checksum is caught by the content checksum.
    const raw = buildFrame(input, frameLayout({ independent: true, contentChecksum: true, raw: () => true }));
    const bad = raw.slice();
    bad[7 + 4 + 100]! ^= 1;
    expect(decodeFrameFast(bad, CAP, 2).ok).toBe(false);
    expectCodecError(() => lz4FrameDecompress(bad), "CHECKSUM_MISMATCH");
  });

  it("refuses a content size that disagrees with the content, as LZ4F does", () => {
    const input = htmlLike(prng(44), 50 * KiB);
    const frame = buildFrame(input, frameLayout({ independent: true, contentSize: true }));
    for (const delta of [-1, 1]) {
      const bad = frame.slice();
      new DataView(bad.buffer).setUint32(6, input.byteLength + delta, true);
      bad[14] = (xxh32(bad.subarray(4, 14)) >>> 8) & 0xff;
      expect(decodeFrameFast(bad, CAP, 2).ok).toBe(false);
      expectCodecError(() => lz4FrameDecompress(bad), "CORRUPT_INPUT");
    }
  });

  it("refuses trailing bytes, a second frame, truncations and damage, leaving the verdict to LZ4F", () => {
    const input = literalsAndMatches(prng(45), 20 * KiB);
    const frame = lz4FrameCompress(input, { blockSize: 65536 });
    expect(decodeFrameFast(concat([frame, frame]), CAP, 2).ok).toBe(false);
    expectCodecError(() => lz4FrameDecompress(concat([frame, Uint8Array.of(0)])), "TRAILING_DATA");
    for (let n = 0; n < frame.byteLength; n += 7) {
      expect(decodeFrameFast(frame.subarray(0, n), CAP, 2).ok, `cut at ${n}`).toBe(false);
      expectCodecError(() => lz4FrameDecompress(frame.subarray(0, n)), "TRUNCATED_INPUT");
    }
    const rand = prng(46);
    for (let i = 0; i < 200; i++) {
      const bad = frame.slice();
      bad[rand.int(0, bad.byteLength - 1)]! ^= 1 << rand.int(0, 7);
      const fast = decodeFrameFast(bad, CAP, rand.int(0, LZ4_VARIANTS.length - 1));
      // The content checksum catches anything that still parses, so nothing damaged is accepted.
      expect(fast.ok, `flip ${i}`).toBe(false);
      expect(() => lz4FrameDecompress(bad)).toThrow();
    }
  });

  it("refuses a frame that names a dictionary, and says so when LZ4F cannot decode it either", () => {
    const input = htmlLike(prng(47), 30 * KiB);
    const frame = buildFrame(input, frameLayout({ contentChecksum: true }));
    // Insert dictionary id 7 after BD and set the flag: the blocks do not use it, so LZ4F decodes them.
    const withDict = concat([frame.subarray(0, 6), Uint8Array.of(7, 0, 0, 0), Uint8Array.of(0), frame.subarray(7)]);
    withDict[4]! |= 0x01;
    withDict[10] = (xxh32(withDict.subarray(4, 10)) >>> 8) & 0xff;
    expect(decodeFrameFast(withDict, CAP, 2)).toEqual({ ok: false, code: FAST_FRAME_DICT_ID });
    expectSameBytes(lz4FrameDecompress(withDict), input);
    // A block over the declared maximum, so that LZ4F fails too: the error names the dictionary.
    const broken = withDict.slice();
    new DataView(broken.buffer).setUint32(11, 65537, true);
    const err = expectCodecError(() => lz4FrameDecompress(broken), "CORRUPT_INPUT");
    expect(err.message).toMatch(/dictionary 7/);
  });
});
