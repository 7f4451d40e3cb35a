/**
 * The Worker's gzip: workerd's built-in node:zlib behind our error type and
 * output cap. Its output is ordinary gzip (fflate
 * reads it, and it reads fflate's), a bomb stops at the cap, and damaged
 * input is an error, never other bytes.
 */
import "../../../src/codec/install-worker.ts";
import { describe, expect, it } from "vitest";
import { CodecError, gzipCompress, gzipDecompress, platformGunzip, platformGzip } from "../../../src/codec/index.ts";
import { prng } from "./support/prng.ts";
import { CONTENT_KINDS, KiB, MiB, expectSameBytes, makeContent } from "./support/inputs.ts";

const rand = prng(0x6219);

async function codecErrorOf(promise: Promise<unknown>): Promise<CodecError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CodecError);
  return err as CodecError;
}

describe("gzip through the platform's zlib", () => {
  for (const kind of CONTENT_KINDS) {
    for (const size of [0, 1, 5 * KiB, 300 * KiB]) {
      it(`round-trips ${size} bytes of ${kind} content, and fflate reads it and is read by it`, async () => {
        const input = makeContent(kind, rand, size);
        const gz = await platformGzip(input);
        expect([gz[0], gz[1]]).toEqual([0x1f, 0x8b]);
        expectSameBytes(await platformGunzip(gz), input);
        expectSameBytes(gzipDecompress(gz), input);
        expectSameBytes(await platformGunzip(gzipCompress(input, { level: 9 })), input);
      });
    }
  }

  it("stops a bomb at the output cap", async () => {
    const bomb = await platformGzip(new Uint8Array(16 * MiB));
    expect(bomb.byteLength).toBeLessThan(32 * KiB);
    const err = await codecErrorOf(platformGunzip(bomb, { maxOutputBytes: MiB }));
    expect(err.code).toBe("OUTPUT_LIMIT");
  });

  it("names bytes after the stream, and input that is not gzip at all", async () => {
    const gz = await platformGzip(makeContent("html", rand, 4 * KiB));
    const trailing = new Uint8Array([...gz, 1, 2, 3]);
    expect((await codecErrorOf(platformGunzip(trailing))).code).toBe("TRAILING_DATA");
    expect((await codecErrorOf(platformGunzip(new TextEncoder().encode("<html>not gzip</html>")))).code).toBe(
      "CORRUPT_INPUT",
    );
    // Two members are one gzip stream (RFC 1952 2.2), as zlib's gunzip reads them.
    const two = new Uint8Array([...gz, ...(await platformGzip(Uint8Array.of(7)))]);
    expect((await platformGunzip(two)).at(-1)).toBe(7);
  });

  it("refuses truncated and damaged input with a CodecError, never other bytes", async () => {
    const input = makeContent("html", rand, 64 * KiB);
    const gz = await platformGzip(input);
    for (const cut of [1, 10, gz.byteLength >> 1, gz.byteLength - 4]) {
      const err = await codecErrorOf(platformGunzip(gz.subarray(0, cut)));
      expect(["TRUNCATED_INPUT", "CORRUPT_INPUT"]).toContain(err.code);
    }
    for (let i = 0; i < 40; i++) {
      const damaged = gz.slice();
      const at = 10 + Math.floor(rand.next() * (damaged.byteLength - 10));
      damaged[at] = damaged[at]! ^ (1 << Math.floor(rand.next() * 8));
      const out = await platformGunzip(damaged).then(
        (bytes) => bytes,
        (e: unknown) => {
          expect(e).toBeInstanceOf(CodecError);
          return null;
        },
      );
      if (out) expectSameBytes(out, input, `flip at ${at}`);
    }
  });
});
