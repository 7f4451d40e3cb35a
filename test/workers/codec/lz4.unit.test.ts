/**
 * LZ4 in workerd: size-prefixed blocks (fast, accelerated, HC), the frame
 * format the `lz4` tool reads and writes, their error codes, and golden
 * frames made by `lz4` 1.9.4 (see test/fixtures/codec/make-golden-vectors.ts).
 */
import "../../../src/codec/install-worker.ts";
import { describe, expect, it } from "vitest";
import {
  Lz4FrameDecoder,
  dropIdleHeaps,
  heapOf,
  lz4Compress,
  lz4Decompress,
  lz4DecompressInto,
  lz4FrameCompress,
  lz4FrameDecompress,
  lz4FrameDecompressInto,
  lz4StoredSize,
} from "../../../src/codec/index.ts";
import { LIMITS } from "../../../src/limits.ts";
import { GOLDEN_INPUTS, GOLDEN_VECTORS } from "../../fixtures/codec/golden-vectors.ts";
import { prng } from "./support/prng.ts";
import {
  KiB,
  MiB,
  basicInputs,
  concat,
  describeOutputCapArgument,
  expectCodecError,
  expectEveryPrefixTruncated,
  expectSameBytes,
  fromHex,
  hex,
  htmlLike,
  lowEntropy,
  splitRandomly,
  utf8,
} from "./support/inputs.ts";

const rand = prng(0x1a4);
const INPUTS: Record<string, Uint8Array> = {
  ...basicInputs(rand, 7, 64, 200),
  "100 KiB low-entropy": lowEntropy(rand, 100 * KiB),
};

/** Frame layout offsets for a frame without content size: magic 4, FLG, BD, HC, then blocks. */
const FRAME_HEADER_BYTES = 7;

describe("LZ4 blocks", () => {
  const settings = [
    { name: "fast", options: { level: 0 } },
    { name: "fast, acceleration 8", options: { level: 0, acceleration: 8 } },
    { name: "fast, acceleration 64", options: { level: 0, acceleration: 64 } },
    { name: "HC level 1", options: { level: 1 } },
    { name: "HC level 9", options: { level: 9 } },
    { name: "HC level 12", options: { level: 12 } },
  ];

  for (const { name, options } of settings) {
    it(`round-trips every input (${name}) with the right stored size`, () => {
      for (const [what, input] of Object.entries(INPUTS)) {
        const packed = lz4Compress(input, options);
        expect(lz4StoredSize(packed), what).toBe(input.byteLength);
        expect(new DataView(packed.buffer, packed.byteOffset).getUint32(0, true), what).toBe(input.byteLength);
        expectSameBytes(lz4Decompress(packed), input, `${name}, ${what}`);
      }
    });
  }

  it("trades size for speed as documented: HC 12 <= HC 9 <= fast <= fast with acceleration 64", () => {
    const page = INPUTS["200 KiB html-like"]!;
    const size = (o: object) => lz4Compress(page, o).byteLength;
    const [hc12, hc9, fast, accel] = [size({ level: 12 }), size({ level: 9 }), size({}), size({ acceleration: 64 })];
    expect(hc12).toBeLessThanOrEqual(hc9);
    expect(hc9).toBeLessThan(fast);
    expect(fast).toBeLessThan(accel);
  });

  it("stores the empty input as a zero size and the one-byte empty block", () => {
    const packed = lz4Compress(new Uint8Array(0));
    expect(hex(packed)).toBe("0000000000");
    expect(lz4Decompress(packed).byteLength).toBe(0);
  });

  it("rejects a zero size with any other body as CORRUPT_INPUT", () => {
    expectCodecError(() => lz4Decompress(fromHex("00000000")), "CORRUPT_INPUT");
    expectCodecError(() => lz4Decompress(fromHex("000000000000")), "CORRUPT_INPUT");
  });

  it("rejects bad levels and acceleration with INVALID_ARGUMENT", () => {
    const one = Uint8Array.of(1);
    for (const level of [-1, 13, 1.5]) expectCodecError(() => lz4Compress(one, { level }), "INVALID_ARGUMENT");
    for (const acceleration of [0, -3, 2.5])
      expectCodecError(() => lz4Compress(one, { acceleration }), "INVALID_ARGUMENT");
  });

  it("refuses a forged size prefix over the cap with OUTPUT_LIMIT before allocating it", () => {
    const packed = lz4Compress(INPUTS["200 KiB html-like"]!);
    const forged = packed.slice();
    new DataView(forged.buffer).setUint32(0, 1 << 30, true);
    const heap = heapOf("lz4");
    const before = heap.bytes;
    const err = expectCodecError(() => lz4Decompress(forged, { maxOutputBytes: MiB }), "OUTPUT_LIMIT");
    expect(err.message).toContain(String(1 << 30));
    expect(heap.bytes).toBe(before);
    // The default cap (codec.maxOutputBytes, 256 MiB) applies when none is given.
    new DataView(forged.buffer).setUint32(0, LIMITS.codec.maxOutputBytes + 1, true);
    expectCodecError(() => lz4Decompress(forged), "OUTPUT_LIMIT");
  });

  it("allows a block of exactly the cap and refuses one byte more", () => {
    const input = INPUTS["200 KiB html-like"]!;
    const packed = lz4Compress(input);
    expect(lz4Decompress(packed, { maxOutputBytes: input.byteLength }).byteLength).toBe(input.byteLength);
    expectCodecError(() => lz4Decompress(packed, { maxOutputBytes: input.byteLength - 1 }), "OUTPUT_LIMIT");
  });

  it("refuses a size prefix the body cannot honestly hold, and a size that disagrees with the body", () => {
    const packed = lz4Compress(INPUTS["200 KiB html-like"]!);
    const tooBig = packed.slice();
    new DataView(tooBig.buffer).setUint32(0, (packed.byteLength - 4) * 255 + 17, true);
    expectCodecError(() => lz4Decompress(tooBig), "CORRUPT_INPUT");
    const offByOne = packed.slice();
    new DataView(offByOne.buffer).setUint32(0, lz4StoredSize(packed) + 1, true);
    expect(expectCodecError(() => lz4Decompress(offByOne), "CORRUPT_INPUT").message).toMatch(/header says/);
    new DataView(offByOne.buffer).setUint32(0, lz4StoredSize(packed) - 1, true);
    expectCodecError(() => lz4Decompress(offByOne), "CORRUPT_INPUT");
  });

  it("fails every truncation: TRUNCATED_INPUT without a full size prefix, CORRUPT_INPUT after", () => {
    const packed = lz4Compress(htmlLike(prng(3), 4 * KiB), { level: 9 });
    for (let n = 0; n < packed.byteLength; n++) {
      expectCodecError(() => lz4Decompress(packed.subarray(0, n)), n < 4 ? "TRUNCATED_INPUT" : "CORRUPT_INPUT");
    }
    expect(() => lz4StoredSize(packed.subarray(0, 3))).toThrow(/no size prefix/);
  });

  it("rejects bytes after the block's last sequence as CORRUPT_INPUT", () => {
    const packed = lz4Compress(INPUTS["200 KiB html-like"]!);
    expectCodecError(() => lz4Decompress(concat([packed, Uint8Array.of(0, 0)])), "CORRUPT_INPUT");
  });

  it("decodes into the caller's buffer: the same bytes, the rest of the buffer untouched", () => {
    for (const [what, input] of Object.entries(INPUTS)) {
      const packed = lz4Compress(input, { level: 9 });
      const out = new Uint8Array(input.byteLength + 7).fill(0xee);
      expect(lz4DecompressInto(packed, out), what).toBe(input.byteLength);
      expectSameBytes(out.subarray(0, input.byteLength), input, what);
      expect(
        out.subarray(input.byteLength).every((b) => b === 0xee),
        what,
      ).toBe(true);
    }
  });

  it("refuses a buffer too small for the stored size, and a corrupt block, leaving the buffer as it was", () => {
    const input = INPUTS["200 KiB html-like"]!;
    const packed = lz4Compress(input);
    const small = new Uint8Array(input.byteLength - 1).fill(0xee);
    expect(expectCodecError(() => lz4DecompressInto(packed, small), "OUTPUT_LIMIT").message).toContain(
      String(input.byteLength),
    );
    const bad = packed.subarray(0, packed.byteLength - 10);
    const out = new Uint8Array(input.byteLength).fill(0xee);
    expectCodecError(() => lz4DecompressInto(bad, out), "CORRUPT_INPUT");
    expect([...small, ...out].every((b) => b === 0xee)).toBe(true);
    expectCodecError(
      () => lz4DecompressInto(packed, new Uint8Array(input.byteLength), { maxOutputBytes: input.byteLength - 1 }),
      "OUTPUT_LIMIT",
    );
  });

  it("returns the heap to idle after failures", () => {
    expect(heapOf("lz4").users).toBe(0);
    expect(heapOf("lz4").broken).toBe(false);
  });
});

describe("LZ4 frames", () => {
  for (const level of [0, 3, 9, 12]) {
    for (const blockSize of [65536, 262144, 1048576, 4194304] as const) {
      it(`round-trips every input at level ${level} with ${blockSize / KiB} KiB blocks`, () => {
        for (const [what, input] of Object.entries(INPUTS)) {
          const frame = lz4FrameCompress(input, { level, blockSize });
          expect(hex(frame.subarray(0, 4)), "magic").toBe("04224d18");
          expectSameBytes(lz4FrameDecompress(frame), input, what);
        }
      });
    }
  }

  it("declares the block size, linked blocks, content size and content checksum in its descriptor", () => {
    const frame = lz4FrameCompress(INPUTS["200 KiB html-like"]!, { blockSize: 65536 });
    const flg = frame[4]!;
    expect(flg >> 6, "version").toBe(1);
    expect(flg & 0x20, "block independence").toBe(0);
    expect(flg & 0x08, "content size").toBe(0x08);
    expect(flg & 0x04, "content checksum").toBe(0x04);
    expect((frame[5]! >> 4) & 7, "block max size id").toBe(4);
    expect(new DataView(frame.buffer, frame.byteOffset + 6, 8).getBigUint64(0, true)).toBe(BigInt(200 * KiB));
    // A single-block frame needs no links, and LZ4F marks it independent.
    const single = lz4FrameCompress(INPUTS["200 KiB html-like"]!, { blockSize: 262144 });
    expect(single[4]! & 0x20, "single block independent").toBe(0x20);
    expect((single[5]! >> 4) & 7, "block max size id").toBe(5);
  });

  it("decodes a frame delivered in pieces of any size", () => {
    const input = INPUTS["200 KiB html-like"]!;
    const frame = lz4FrameCompress(input, { blockSize: 65536 });
    for (const maxPiece of [1, 7, 4096, 300 * KiB]) {
      const dec = new Lz4FrameDecoder();
      const out = concat(splitRandomly(prng(maxPiece), frame, maxPiece).flatMap((piece) => dec.push(piece)));
      dec.finish();
      expectSameBytes(out, input, `pieces of up to ${maxPiece}`);
    }
  });

  it("reports a changed content byte as CHECKSUM_MISMATCH", () => {
    // Random bytes do not compress, so LZ4 stores the block raw and every body byte is content.
    const input = INPUTS["64 KiB random"]!;
    const frame = lz4FrameCompress(input, { blockSize: 65536 });
    const headerBytes = FRAME_HEADER_BYTES + 8; // this frame carries its content size
    const blockSize = new DataView(frame.buffer, frame.byteOffset + headerBytes, 4).getUint32(0, true);
    expect(blockSize >>> 31, "block stored uncompressed").toBe(1);
    for (const at of [0, 1000, input.byteLength - 1]) {
      const bad = frame.slice();
      bad[headerBytes + 4 + at]! ^= 0x40;
      const err = expectCodecError(() => lz4FrameDecompress(bad), "CHECKSUM_MISMATCH");
      expect(err.message).toMatch(/contentChecksum/);
    }
  });

  it("reports a changed descriptor byte or content checksum byte as CHECKSUM_MISMATCH", () => {
    const frame = lz4FrameCompress(INPUTS["200 KiB html-like"]!);
    const header = frame.slice();
    header[6]! ^= 1; // first byte of the content size, covered by the header checksum
    expect(expectCodecError(() => lz4FrameDecompress(header), "CHECKSUM_MISMATCH").message).toMatch(/headerChecksum/);
    const trailer = frame.slice();
    trailer[trailer.byteLength - 1]! ^= 1;
    expect(expectCodecError(() => lz4FrameDecompress(trailer), "CHECKSUM_MISMATCH").message).toMatch(/contentChecksum/);
  });

  it("rejects a bad magic number or reserved flag as CORRUPT_INPUT", () => {
    const frame = lz4FrameCompress(utf8("hello"));
    const magic = frame.slice();
    magic[0] = 0x05;
    expectCodecError(() => lz4FrameDecompress(magic), "CORRUPT_INPUT");
    const reserved = frame.slice();
    reserved[4]! |= 0x02;
    expectCodecError(() => lz4FrameDecompress(reserved), "CORRUPT_INPUT");
  });

  it("fails every proper prefix with TRUNCATED_INPUT and hands out only correct bytes", () => {
    const input = htmlLike(prng(9), 6 * KiB);
    const frame = lz4FrameCompress(input, { blockSize: 65536 });
    expectEveryPrefixTruncated("lz4", frame, input, lz4FrameDecompress, Lz4FrameDecoder);
  });

  it("reports bytes after the frame, including a second frame, as TRAILING_DATA", () => {
    const frame = lz4FrameCompress(utf8("hello"));
    expectCodecError(() => lz4FrameDecompress(concat([frame, Uint8Array.of(1, 2, 3)])), "TRAILING_DATA");
    expectCodecError(() => lz4FrameDecompress(concat([frame, frame])), "TRAILING_DATA");
    const dec = new Lz4FrameDecoder();
    dec.push(frame);
    expectCodecError(() => dec.push(Uint8Array.of(0)), "TRAILING_DATA");
  });

  it("stops at the output cap with OUTPUT_LIMIT and allows exactly the cap", () => {
    const input = lowEntropy(prng(5), 2 * MiB);
    const frame = lz4FrameCompress(input, { blockSize: 65536 });
    expect(lz4FrameDecompress(frame, { maxOutputBytes: input.byteLength }).byteLength).toBe(input.byteLength);
    expectCodecError(() => lz4FrameDecompress(frame, { maxOutputBytes: input.byteLength - 1 }), "OUTPUT_LIMIT");
    expectCodecError(() => lz4FrameDecompress(frame, { maxOutputBytes: 64 * KiB }), "OUTPUT_LIMIT");
  });

  it("decodes a frame into the caller's buffer, on the fast path and through LZ4F, and refuses one too small", () => {
    const input = INPUTS["200 KiB html-like"]!;
    // Ours declares its content size; the lz4 tool's golden frames do not.
    const golden = GOLDEN_VECTORS.filter((g) => g.codec === "lz4-frame").map((v) => ({
      frame: fromHex(v.hex),
      input: utf8(GOLDEN_INPUTS[v.input]),
    }));
    for (const { frame, input: expected } of [
      { frame: lz4FrameCompress(input, { blockSize: 65536 }), input },
      ...golden,
    ]) {
      const out = new Uint8Array(expected.byteLength + 3).fill(0xee);
      expect(lz4FrameDecompressInto(frame, out)).toBe(expected.byteLength);
      expectSameBytes(out.subarray(0, expected.byteLength), expected);
      expect(out.subarray(expected.byteLength).every((b) => b === 0xee)).toBe(true);
      if (expected.byteLength > 0)
        expectCodecError(() => lz4FrameDecompressInto(frame, new Uint8Array(expected.byteLength - 1)), "OUTPUT_LIMIT");
    }
    // A skippable frame takes LZ4F's path, which decodes it to nothing.
    expect(lz4FrameDecompressInto(fromHex("502a4d180400000001020304"), new Uint8Array(4))).toBe(0);
  });

  it("rejects an unsupported block size with INVALID_ARGUMENT", () => {
    expectCodecError(() => lz4FrameCompress(utf8("x"), { blockSize: 1234 as never }), "INVALID_ARGUMENT");
  });

  it("decodes a skippable frame to nothing, but refuses the legacy format as CORRUPT_INPUT", () => {
    expect(lz4FrameDecompress(fromHex("502a4d180400000001020304")).byteLength).toBe(0);
    // `lz4 -l` of "hello": legacy magic 02 21 4C 18, which LZ4F does not read.
    expectCodecError(() => lz4FrameDecompress(fromHex("02214c18060000005068656c6c6f")), "CORRUPT_INPUT");
  });

  // lz4frame.c's history step after a partial flush (1.9.4, line 2034) computes
  // `dict + dictSize - tmpOutStart` even when it copies 0 bytes; on wasm32 that
  // address wrapped below zero for linked blocks over about 1.5 MiB, and
  // bulk-memory `memory.copy` traps on it even for 0 bytes. The decoder now
  // gives LZ4F room for a whole 4 MiB block per call, so it never flushes
  // partially across calls from an offset past its history.
  it("round-trips a 6 MiB frame with the default 4 MiB linked blocks", () => {
    const input = htmlLike(prng(6), 6 * MiB);
    const frame = lz4FrameCompress(input);
    // Start the decoder on a fresh heap, as a new isolate would: the trap
    // depended on where the decoder's buffers sit, low in a fresh heap.
    dropIdleHeaps();
    expect(heapOf("lz4").bytes, "a fresh heap").toBeLessThanOrEqual(2 * MiB);
    expectSameBytes(lz4FrameDecompress(frame), input);
  });

  it("decodes a push that ends exactly where a block filling the whole output buffer ends", () => {
    // A 4 MiB block decoded in one call fills the decoder's whole buffer with
    // no input left; the decoder asks LZ4F once more for pending output and
    // must take "nothing" as the end of the push, not as a stall.
    const input = htmlLike(prng(7), 4 * MiB + 1000);
    const frame = lz4FrameCompress(input);
    const firstBlock = FRAME_HEADER_BYTES + 8; // this frame carries its content size
    const blockBytes = new DataView(frame.buffer, frame.byteOffset + firstBlock, 4).getUint32(0, true);
    expect(blockBytes >>> 31, "first block compressed").toBe(0);
    const cut = firstBlock + 4 + blockBytes;
    const dec = new Lz4FrameDecoder();
    const first = concat(dec.push(frame.subarray(0, cut)));
    expect(first.byteLength).toBe(4 * MiB);
    const rest = concat(dec.push(frame.subarray(cut)));
    dec.finish();
    expectSameBytes(concat([first, rest]), input);
  });

  it("keeps working after the failure above: a trapped instance is replaced by a fresh heap", () => {
    expect(heapOf("lz4").broken).toBe(false);
    expect(heapOf("lz4").users).toBe(0);
    expectSameBytes(lz4FrameDecompress(lz4FrameCompress(INPUTS["200 KiB html-like"]!)), INPUTS["200 KiB html-like"]!);
  });
});

// LIMITS.codec.maxOutputBytes says callers "may lower it, never raise it
// past this"; every decoder checks its cap with resolveOutputCap().
describeOutputCapArgument("LZ4", () => [
  [lz4Compress(utf8("hello")), lz4Decompress],
  [lz4FrameCompress(utf8("hello")), lz4FrameDecompress],
]);

describe("LZ4 golden frames from the reference tool", () => {
  for (const v of GOLDEN_VECTORS.filter((g) => g.codec === "lz4-frame")) {
    it(`decodes \`${v.command}\` output (${v.name})`, () => {
      expectSameBytes(lz4FrameDecompress(fromHex(v.hex)), utf8(GOLDEN_INPUTS[v.input]));
    });
  }

  it("checks the block checksums the tool wrote with -BX", () => {
    const v = GOLDEN_VECTORS.find((g) => g.command.includes("-BX"))!;
    const frame = fromHex(v.hex);
    expect(frame[4]! & 0x10, "block checksum flag").toBe(0x10);
    const bad = frame.slice();
    bad[FRAME_HEADER_BYTES + 4 + 10]! ^= 1; // a byte inside the first block
    expectCodecError(() => lz4FrameDecompress(bad), "CHECKSUM_MISMATCH");
  });
});
