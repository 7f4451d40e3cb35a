/**
 * gzip and raw deflate in workerd (fflate underneath): round trips, RFC 1952
 * header fields, checksums, truncation, the output cap, and golden members
 * made by GNU gzip 1.12 (see test/fixtures/codec/make-golden-vectors.ts).
 */
import { describe, expect, it } from "vitest";
import { deflateCompress, deflateDecompress, gzipCompress, gzipDecompress } from "../../../src/codec/index.ts";
import { GOLDEN_INPUTS, GOLDEN_VECTORS } from "../../fixtures/codec/golden-vectors.ts";
import { prng } from "./support/prng.ts";
import {
  KiB,
  MiB,
  basicInputs,
  concat,
  describeOutputCapArgument,
  expectCodecError,
  expectSameBytes,
  fromHex,
  htmlLike,
  utf8,
} from "./support/inputs.ts";

const rand = prng(0x6219);
const INPUTS = basicInputs(rand, 0x99, 48, 150);
const page = INPUTS["150 KiB html-like"]!;

/** CRC-32 (IEEE), written out here so header CRCs are checked against an independent implementation. */
function crc32(bytes: Uint8Array): number {
  let crc = ~0;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

describe("gzip round trips", () => {
  for (const level of [0, 1, 6, 9]) {
    it(`restores every input at level ${level}`, () => {
      for (const [what, input] of Object.entries(INPUTS))
        expectSameBytes(gzipDecompress(gzipCompress(input, { level })), input, what);
    });
  }

  it("writes a reproducible RFC 1952 member: magic, deflate, zero mtime, CRC-32 and length trailer", () => {
    const member = gzipCompress(page);
    expect(Array.from(member.subarray(0, 4))).toEqual([0x1f, 0x8b, 8, 0]);
    expect(new DataView(member.buffer, member.byteOffset + 4, 4).getUint32(0, true), "mtime").toBe(0);
    const trailer = new DataView(member.buffer, member.byteOffset + member.byteLength - 8, 8);
    expect(trailer.getUint32(0, true)).toBe(crc32(page));
    expect(trailer.getUint32(4, true)).toBe(page.byteLength);
    expect(gzipCompress(page)).toEqual(member);
  });

  it("makes level 9 smaller than level 1, and level 0 store", () => {
    expect(gzipCompress(page, { level: 9 }).byteLength).toBeLessThan(gzipCompress(page, { level: 1 }).byteLength);
    expect(gzipCompress(page, { level: 0 }).byteLength).toBeGreaterThan(page.byteLength);
  });

  it("rejects levels outside 0..9 with INVALID_ARGUMENT", () => {
    for (const level of [-1, 10, 4.5]) {
      expectCodecError(() => gzipCompress(page, { level }), "INVALID_ARGUMENT");
      expectCodecError(() => deflateCompress(page, { level }), "INVALID_ARGUMENT");
    }
  });

  it("reads the optional header fields: FEXTRA, FNAME, FCOMMENT and FHCRC", () => {
    const member = gzipCompress(page);
    const body = member.subarray(10);
    const header = concat([
      Uint8Array.of(0x1f, 0x8b, 8, 0x04 | 0x08 | 0x10 | 0x02, 1, 2, 3, 4, 0, 3),
      Uint8Array.of(6, 0, 0x41, 0x42, 2, 0, 0x58, 0x59), // XLEN=6: one subfield "AB" holding 2 bytes
      utf8("page.html\0"),
      utf8("a comment\0"),
    ]);
    const hcrc = crc32(header) & 0xffff;
    const full = concat([header, Uint8Array.of(hcrc & 0xff, hcrc >> 8), body]);
    expectSameBytes(gzipDecompress(full), page);
  });
});

describe("gzip golden members from the reference tool", () => {
  for (const v of GOLDEN_VECTORS.filter((g) => g.codec === "gzip")) {
    it(`decodes \`${v.command}\` output (${v.name})`, () => {
      expectSameBytes(gzipDecompress(fromHex(v.hex)), utf8(GOLDEN_INPUTS[v.input]));
    });
  }
});

describe("gzip damage", () => {
  const member = gzipCompress(htmlLike(prng(4), 4 * KiB));
  const original = gzipDecompress(member);

  it("fails every truncation with TRUNCATED_INPUT and never returns bytes", () => {
    // Including cuts inside the trailer: the trailer is read from where the
    // member's deflate data ends, never from the input's last 8 bytes.
    for (let n = 0; n < member.byteLength; n++)
      expectCodecError(() => gzipDecompress(member.subarray(0, n)), "TRUNCATED_INPUT");
  });

  it("rejects a bad magic number or compression method as CORRUPT_INPUT", () => {
    const magic = member.slice();
    magic[1] = 0x8c;
    expectCodecError(() => gzipDecompress(magic), "CORRUPT_INPUT");
    const method = member.slice();
    method[2] = 9;
    expectCodecError(() => gzipDecompress(method), "CORRUPT_INPUT");
  });

  it("reports a wrong CRC-32 or length in the trailer as CHECKSUM_MISMATCH", () => {
    for (const at of [member.byteLength - 8, member.byteLength - 5, member.byteLength - 4, member.byteLength - 1]) {
      const bad = member.slice();
      bad[at]! ^= 0x10;
      expectCodecError(() => gzipDecompress(bad), "CHECKSUM_MISMATCH");
    }
  });

  it("returns the original or a CodecError for any single flipped bit", () => {
    const r = prng(77);
    for (let i = 0; i < 400; i++) {
      const bad = member.slice();
      bad[r.int(0, bad.byteLength - 1)]! ^= 1 << r.int(0, 7);
      let out: Uint8Array | undefined;
      try {
        out = gzipDecompress(bad, { maxOutputBytes: 64 * KiB });
      } catch (err) {
        expect(err, `flip ${i}`).toHaveProperty("name", "CodecError");
        continue;
      }
      expectSameBytes(out, original, `flip ${i} decoded without error`);
    }
  });

  it("never returns when bytes follow the member", () => {
    expect(() => gzipDecompress(concat([member, Uint8Array.of(1, 2, 3)]))).toThrow(
      expect.objectContaining({ name: "CodecError" }),
    );
  });

  // The trailer is read from where the member ends, not from the input's last 8 bytes.
  it("reports garbage after the member as TRAILING_DATA", () => {
    expectCodecError(() => gzipDecompress(concat([member, Uint8Array.of(1, 2, 3)])), "TRAILING_DATA");
  });

  // RFC 1952 allows several members in a row and `gzip -d` (and Node's gunzip)
  // decode them all; each member's trailer is checked against its own data.
  it("decodes a two-member file to both members' contents, as gzip -d does", () => {
    const second = gzipCompress(utf8("second member\n"));
    expectSameBytes(gzipDecompress(concat([member, second])), concat([original, utf8("second member\n")]));
  });

  it("checks every member's trailer, and finds garbage after the last of several members", () => {
    const second = gzipCompress(utf8("second member\n"));
    const badFirst = concat([member, second]);
    badFirst[member.byteLength - 5]! ^= 1; // the first member's length
    expect(expectCodecError(() => gzipDecompress(badFirst), "CHECKSUM_MISMATCH").message).toMatch(/member 1/);
    const badSecond = concat([member, second]);
    badSecond[badSecond.byteLength - 8]! ^= 1; // the second member's CRC-32
    expect(expectCodecError(() => gzipDecompress(badSecond), "CHECKSUM_MISMATCH").message).toMatch(/member 2/);
    for (const garbage of [Uint8Array.of(0), new Uint8Array(20), utf8("not another gzip member")]) {
      const err = expectCodecError(() => gzipDecompress(concat([member, second, garbage])), "TRAILING_DATA");
      expect(err.message).toMatch(/member 2/);
    }
    // A wrong trailer with garbage after it is reported as the wrong trailer.
    const badThenGarbage = concat([member, utf8("garbage after the member")]);
    badThenGarbage[member.byteLength - 1]! ^= 1;
    expectCodecError(() => gzipDecompress(badThenGarbage), "CHECKSUM_MISMATCH");
  });

  it("applies one output cap across all members", () => {
    const both = concat([member, member]);
    expect(gzipDecompress(both, { maxOutputBytes: 2 * original.byteLength }).byteLength).toBe(2 * original.byteLength);
    expectCodecError(() => gzipDecompress(both, { maxOutputBytes: 2 * original.byteLength - 1 }), "OUTPUT_LIMIT");
  });
});

describe("gzip output cap", () => {
  const bomb = gzipCompress(new Uint8Array(16 * MiB), { level: 9 });

  it("stops a 16 MiB bomb at a 1 MiB cap with OUTPUT_LIMIT", () => {
    expect(bomb.byteLength).toBeLessThan(32 * KiB);
    expectCodecError(() => gzipDecompress(bomb, { maxOutputBytes: MiB }), "OUTPUT_LIMIT");
  });

  it("allows output of exactly the cap and refuses one byte more", () => {
    const member = gzipCompress(page);
    expect(gzipDecompress(member, { maxOutputBytes: page.byteLength }).byteLength).toBe(page.byteLength);
    expectCodecError(() => gzipDecompress(member, { maxOutputBytes: page.byteLength - 1 }), "OUTPUT_LIMIT");
  });
});

// As for brotli and LZ4, gzipDecompress and deflateDecompress check their cap with resolveOutputCap().
describeOutputCapArgument("gzip", () => [
  [gzipCompress(utf8("hello")), gzipDecompress],
  [deflateCompress(utf8("hello")), deflateDecompress],
]);

describe("raw deflate", () => {
  it("round-trips every input and matches the body of the gzip member", () => {
    for (const [what, input] of Object.entries(INPUTS)) {
      const raw = deflateCompress(input, { level: 6 });
      expectSameBytes(deflateDecompress(raw), input, what);
      const member = gzipCompress(input, { level: 6 });
      expectSameBytes(member.subarray(10, member.byteLength - 8), raw, `${what}: gzip body`);
    }
  });

  it("reports a cut stream as TRUNCATED_INPUT and stops at the cap with OUTPUT_LIMIT", () => {
    const raw = deflateCompress(page);
    expectCodecError(() => deflateDecompress(raw.subarray(0, raw.byteLength >> 1)), "TRUNCATED_INPUT");
    expectCodecError(() => deflateDecompress(raw, { maxOutputBytes: 10 * KiB }), "OUTPUT_LIMIT");
  });

  // fflate 0.8.3's Inflate ends some cut streams without an error unless the
  // last slice is pushed with final=true, and decodes empty input to nothing;
  // deflateDecompress pushes the last slice as final and refuses empty input.
  it("refuses every proper prefix of a stream instead of returning part of it", () => {
    const raw = deflateCompress(htmlLike(prng(4), 4 * KiB));
    for (let n = 0; n < raw.byteLength; n++)
      expectCodecError(() => deflateDecompress(raw.subarray(0, n)), "TRUNCATED_INPUT");
  });

  it("rejects a reserved block type as CORRUPT_INPUT", () => {
    expectCodecError(() => deflateDecompress(Uint8Array.of(0x07, 0, 0)), "CORRUPT_INPUT");
  });
});
