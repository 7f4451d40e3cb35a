/**
 * Our LZ4 block decoder (src/codec/native/lz4_fast.c) against upstream's
 * LZ4_decompress_safe, in workerd with the real wasm: every variant decodes
 * what the compressor wrote, byte for byte; on damaged blocks it returns the
 * reference's bytes or an error, never other bytes, never a trap; and it
 * stays inside its buffers' slack.
 */
import "../../../src/codec/install-worker.ts";
import { describe, expect, it } from "vitest";
import {
  heapOf,
  lz4Compress,
  lz4Decompress,
  lz4DecompressWith,
  lz4VariantChoice,
  LZ4_DEFAULT_VARIANT,
  LZ4_VARIANTS,
} from "../../../src/codec/index.ts";
import { GOLDEN_INPUTS } from "../../fixtures/codec/golden-vectors.ts";
import { decodeRaw, literalsAndMatches, shortPeriods, SLACK, type Layout } from "./support/lz4-blocks.ts";
import { prng, type Prng } from "./support/prng.ts";
import { KiB, MiB, expectCodecError, expectSameBytes, htmlLike, lowEntropy, utf8 } from "./support/inputs.ts";

const VARIANTS = LZ4_VARIANTS.map((name, number) => ({ name, number }));
const LEVELS = [
  { name: "fast", options: { level: 0 } },
  { name: "fast, acceleration 8", options: { level: 0, acceleration: 8 } },
  { name: "HC 9", options: { level: 9 } },
  { name: "HC 12", options: { level: 12 } },
];

/** A block without lz4Compress's 4-byte size prefix. */
const rawBlock = (input: Uint8Array, options: object) => lz4Compress(input, options).subarray(4);

function generated(rand: Prng, size: number): Record<string, Uint8Array> {
  return {
    random: rand.bytes(size),
    "html-like": htmlLike(rand, size),
    "low-entropy": lowEntropy(rand, size),
    "offsets 1..20": shortPeriods(rand, size),
    "long literals and matches of 4..300": literalsAndMatches(rand, size),
  };
}

describe("LZ4 fast decoder: valid blocks", () => {
  const heap = () => heapOf("lz4");

  it("exports the slack the limits table documents", () => {
    expect(heap().fn.pal_lz4_slack!()).toBe(SLACK);
    expect(heap().fn.pal_lz4_variants!()).toBe(LZ4_VARIANTS.length);
  });

  it("decodes the golden inputs and small sizes 0..300 like the reference, in every variant", () => {
    const rand = prng(0x5a1);
    const inputs = Object.entries(GOLDEN_INPUTS).map(([name, text]) => [name, utf8(text)] as const);
    for (let size = 0; size <= 300; size += size < 40 ? 1 : 13) {
      for (const [kind, bytes] of Object.entries(generated(rand, size))) inputs.push([`${kind} ${size}`, bytes]);
    }
    for (const [what, input] of inputs) {
      for (const { name, options } of LEVELS) {
        const block = rawBlock(input, options);
        const ref = decodeRaw(heap(), block, input.byteLength, "reference");
        expect(ref.n, `${what} ${name} reference`).toBe(input.byteLength);
        for (const v of VARIANTS) {
          const got = decodeRaw(heap(), block, input.byteLength, v.number);
          expect(got.n, `${what} ${name} ${v.name}`).toBe(input.byteLength);
          expectSameBytes(got.out, input, `${what} ${name} ${v.name}`);
        }
      }
    }
  });

  for (const size of [64 * KiB + 3, 1 * MiB, 4 * MiB]) {
    it(`decodes ${size} bytes of each kind at fast and HC levels, in every variant`, () => {
      const rand = prng(size);
      for (const [kind, input] of Object.entries(generated(rand, size))) {
        for (const { name, options } of size > MiB ? LEVELS.slice(0, 3) : LEVELS) {
          const block = rawBlock(input, options);
          for (const v of VARIANTS) {
            const got = decodeRaw(heap(), block, size, v.number);
            expect(got.n, `${kind} ${name} ${v.name}`).toBe(size);
            expectSameBytes(got.out, input, `${kind} ${name} ${v.name}`);
          }
        }
      }
    }, 120_000);
  }

  it("decodes into a larger capacity exactly as the reference does", () => {
    const input = htmlLike(prng(4), 20 * KiB);
    for (const { name, options } of LEVELS) {
      const block = rawBlock(input, options);
      for (const extra of [1, 12, 100, 70_000]) {
        const ref = decodeRaw(heap(), block, input.byteLength + extra, "reference");
        for (const v of VARIANTS) {
          const got = decodeRaw(heap(), block, input.byteLength + extra, v.number);
          expect(got.n, `${name} +${extra} ${v.name}`).toBe(ref.n);
          expectSameBytes(got.out, ref.out, `${name} +${extra} ${v.name}`);
        }
      }
    }
  });

  it("keeps the buffers' ends in place: input and output ending exactly at the end of wasm memory", () => {
    const rand = prng(77);
    for (const [kind, input] of Object.entries(generated(rand, 3000))) {
      for (const { name, options } of LEVELS) {
        const block = rawBlock(input, options);
        for (const layout of ["src-at-end", "dst-at-end"] as const) {
          for (const v of VARIANTS) {
            const got = decodeRaw(heap(), block, input.byteLength, v.number, layout);
            expectSameBytes(got.out, input, `${kind} ${name} ${v.name} ${layout}`);
          }
        }
      }
    }
  });
});

describe("LZ4 fast decoder: damaged blocks", () => {
  const heap = () => heapOf("lz4");

  /** Each variant gives the reference's bytes or an error; the canaries and memory ends catch stray accesses. */
  function agrees(block: Uint8Array, cap: number, what: string, layout: Layout = "canaries"): { refused: number } {
    const ref = decodeRaw(heap(), block, cap, "reference");
    let refused = 0;
    for (const v of VARIANTS) {
      const got = decodeRaw(heap(), block, cap, v.number, layout);
      if (got.n < 0) {
        refused++;
        continue;
      }
      expect(got.n, `${what} ${v.name}: decoded where the reference refused`).toBe(ref.n);
      expectSameBytes(got.out, ref.out, `${what} ${v.name}`);
    }
    return { refused };
  }

  it("refuses or matches the reference on every truncation of small blocks, reading nothing past the slack", () => {
    const rand = prng(31);
    for (const [kind, input] of Object.entries(generated(rand, 700))) {
      for (const { name, options } of LEVELS) {
        const block = rawBlock(input, options);
        for (let n = 0; n < block.byteLength; n++) {
          const cut = block.subarray(0, n);
          agrees(cut, input.byteLength, `${kind} ${name} cut at ${n}`, n % 2 === 0 ? "src-at-end" : "canaries");
        }
      }
    }
  });

  it("refuses or matches the reference on mutated blocks: bit flips, byte changes, extended lengths, far offsets", () => {
    const rand = prng(0xf022);
    let cases = 0;
    let refusedByAll = 0;
    for (let round = 0; round < 600; round++) {
      const size = rand.int(1, 6000);
      const kind = rand.pick([
        "html-like",
        "low-entropy",
        "offsets 1..20",
        "long literals and matches of 4..300",
        "random",
      ] as const);
      const input = generated(rand, size)[kind]!;
      const block = rawBlock(input, rand.pick(LEVELS).options).slice();
      const mutations = rand.int(1, 4);
      for (let m = 0; m < mutations; m++) {
        // Half the time near the start, where the history is short and an offset nudged up reaches before it.
        const at = rand.int(0, rand.next() < 0.5 ? Math.min(block.byteLength - 1, 48) : block.byteLength - 1);
        switch (rand.int(0, 5)) {
          case 0:
            block[at]! ^= 1 << rand.int(0, 7);
            break;
          case 1:
            block[at] = rand.int(0, 255);
            break;
          case 2:
            block[at]! |= 0xf0; // a literal length that now continues into the next bytes
            break;
          case 3:
            block[at]! |= 0x0f; // a match length that now continues
            break;
          case 4:
            block[at] = (block[at]! + rand.int(1, 8)) & 0xff; // an offset or length nudged
            break;
          default:
            block[at] = 0xff; // an offset's high byte, or a length byte, pushed far
        }
      }
      for (const cap of [size, size + rand.int(1, 100)]) {
        const layout = rand.pick(["canaries", "src-at-end", "dst-at-end"] as const);
        const { refused } = agrees(
          block,
          cap,
          `round ${round} (${kind}, ${size} bytes, cap ${cap}, ${layout})`,
          layout,
        );
        if (refused === VARIANTS.length) refusedByAll++;
        cases++;
      }
    }
    // The mutations must actually reach the error paths, or this test proves nothing.
    expect(refusedByAll).toBeGreaterThan(cases / 4);
    expect(heap().broken).toBe(false);
  }, 120_000);

  it("refuses offset 0 and offsets reaching before the output's start", () => {
    // 5 literals and a 4-byte match at `offset`, then the last 8 literals: 17 bytes.
    const block = (offset: number) =>
      Uint8Array.of(0x50, 1, 2, 3, 4, 5, offset & 0xff, offset >> 8, 0x80, 6, 7, 8, 9, 10, 11, 12, 13);
    for (const v of VARIANTS) {
      expect(decodeRaw(heap(), block(5), 17, v.number).n, `${v.name} offset 5`).toBe(17);
      expect(decodeRaw(heap(), block(0), 17, v.number).n, `${v.name} offset 0`).toBeLessThan(0);
      expect(decodeRaw(heap(), block(6), 17, v.number).n, `${v.name} offset 6`).toBeLessThan(0);
      expect(decodeRaw(heap(), block(0xffff), 17, v.number).n, `${v.name} offset 65535`).toBeLessThan(0);
    }
    expect(decodeRaw(heap(), block(5), 17, "reference").n).toBe(17);
    expect(decodeRaw(heap(), block(6), 17, "reference").n).toBeLessThan(0);
  });

  it("refuses a match in the last 12 bytes or ending within 5 of the end, as the reference does", () => {
    // 4 literals, a 4-byte match at offset 4, then 3 literals: the match ends 3 bytes before the end.
    const early = Uint8Array.of(0x40, 1, 2, 3, 4, 4, 0, 0x30, 5, 6, 7);
    for (const v of [...VARIANTS.map((x) => x.number), "reference" as const]) {
      expect(decodeRaw(heap(), early, 11, v).n, `${v}`).toBeLessThan(0);
    }
  });
});

describe("LZ4 fast decoder: the block API", () => {
  it("decodes with every named variant and the reference alike, and errors as before", () => {
    const input = literalsAndMatches(prng(8), 300 * KiB);
    const packed = lz4Compress(input, { level: 9 });
    for (const variant of [...LZ4_VARIANTS, "reference"] as const)
      expectSameBytes(lz4DecompressWith(packed, variant), input, variant);
    const bad = packed.subarray(0, packed.byteLength - 1);
    for (const variant of [...LZ4_VARIANTS, "reference"] as const)
      expectCodecError(() => lz4DecompressWith(bad, variant), "CORRUPT_INPUT");
  });

  it("runs the default variant in workerd, where the clock stands still (or moves in whole ms) and nothing is learnt", () => {
    const input = htmlLike(prng(12), 256 * KiB);
    const packed = lz4Compress(input);
    for (let i = 0; i < 20; i++) expectSameBytes(lz4Decompress(packed), input);
    const choice = lz4VariantChoice();
    expect(choice.current).toBe(LZ4_DEFAULT_VARIANT);
    expect(choice.arms.every((a) => a.samples === 0)).toBe(true);
  });
});
