/**
 * Types for the two modules of unbzip2-stream (1.4.3) that bunzip2.ts uses:
 * its block decoder and its bit reader. @types/unbzip2-stream covers only
 * the stream wrapper.
 */
declare module "unbzip2-stream/lib/bit_iterator.js" {
  /** Reads `n` bits (MSB first); `null` skips to the next byte boundary. */
  export interface BitReader {
    (n: number | null): number;
    /** Bytes of input started so far. */
    bytesRead: number;
  }
  /** A bit reader over the buffers `nextBuffer` returns, one after another; it asks for the first at once. */
  export default function bitIterator(nextBuffer: () => Uint8Array): BitReader;
}

declare module "unbzip2-stream/lib/bzip2.js" {
  import type { BitReader } from "unbzip2-stream/lib/bit_iterator.js";
  const bzip2: {
    /** Reads a stream header ("BZh" and the level); returns the level, 1–9 (blocks of level × 100 000 bytes). */
    header(bits: BitReader): number;
    /**
     * Decodes one block, handing each output byte to `write`; returns the
     * running stream CRC, or null at the end-of-stream marker (another
     * stream may follow). Throws on corrupt data.
     */
    decompress(
      bits: BitReader,
      write: (byte: number) => void,
      buf: Int32Array,
      bufsize: number,
      streamCRC: number,
    ): number | null;
  };
  export default bzip2;
}
