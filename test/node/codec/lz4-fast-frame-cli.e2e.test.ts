/**
 * Frames written by the Debian `lz4` tool (1.9.4) in every layout it offers
 * (block sizes 64 KiB..4 MiB, linked and independent blocks, block checksums,
 * content size, no content checksum, levels 1 and 9) decode on our fast path
 * (src/codec/lz4/fast-frame.ts) to the original corpus bytes, and through
 * lz4FrameDecompress; a damaged checksum still reads as CHECKSUM_MISMATCH.
 */
import "../../../src/codec/install-node.ts";
import { expect, it } from "vitest";
import { CodecError, LZ4_VARIANTS, lz4FrameDecompress } from "../../../src/codec/index.ts";
import { decodeFrameFast } from "../../../src/codec/lz4/fast-frame.ts";
import { LIMITS } from "../../../src/limits.ts";
import { firstMissing, describeNeeding } from "../support/requirements.ts";
import { NO_CORPUS, NO_TOOLS, historyExcerpt, tool, webSample } from "./support/corpus.ts";
import { sameBytes } from "./support/bytes.ts";

const missing = firstMissing(NO_CORPUS, NO_TOOLS);
const ready = missing === null;

const LAYOUTS = [
  ["-B4", "-BD", "--content-size"],
  ["-B4", "-BI", "-BX"],
  ["-B5", "-BD", "-BX", "--no-frame-crc"],
  ["-B6", "-BI", "--content-size", "--no-frame-crc"],
  ["-B7", "-BD", "-BX", "--content-size"],
  ["-B7", "-BI"],
];

describeNeeding(missing, "lz4 tool frames through the fast decoder", () => {
  const files = ready ? [...webSample().slice(0, 6), historyExcerpt(1_500_000)] : [];

  for (const level of ["-1", "-9"]) {
    for (const flags of LAYOUTS) {
      it(`decodes \`lz4 ${level} ${flags.join(" ")}\` on the fast path in every variant`, async () => {
        for (const f of files) {
          const frame = new Uint8Array(await tool("lz4", ["-c", level, ...flags], f.bytes));
          for (let v = 0; v < LZ4_VARIANTS.length; v++) {
            const fast = decodeFrameFast(frame, LIMITS.codec.maxOutputBytes, v);
            expect(fast.ok, `${f.name} ${LZ4_VARIANTS[v]}`).toBe(true);
            if (fast.ok) expect(sameBytes(fast.bytes, f.bytes), `${f.name} ${LZ4_VARIANTS[v]}`).toBe(true);
          }
          expect(sameBytes(lz4FrameDecompress(frame), f.bytes), f.name).toBe(true);
        }
      });
    }
  }

  it("reports a damaged content or block checksum from the tool as CHECKSUM_MISMATCH", async () => {
    const f = files.at(-1)!;
    for (const flags of [["-BX"], []]) {
      const frame = new Uint8Array(await tool("lz4", ["-c", "-9", "-B4", ...flags], f.bytes));
      const bad = frame.slice();
      bad[bad.byteLength - 1]! ^= 1; // the content checksum
      expect(decodeFrameFast(bad, LIMITS.codec.maxOutputBytes, 2).ok).toBe(false);
      let err: unknown;
      try {
        lz4FrameDecompress(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(CodecError);
      expect((err as CodecError).code).toBe("CHECKSUM_MISMATCH");
    }
  });
});
