/**
 * bzip2 decoding as an async generator with bounded memory, on
 * unbzip2-stream's block decoder. That package's own stream wrapper gathers
 * each block's output one byte at a time in a JavaScript array, 8 bytes per
 * byte: a 178-byte file of one repeated letter (200 MB once decoded) drives
 * it past 2 GB. Here a block is decoded only when the reader asks for more,
 * straight into 64 KiB buffers reused from block to block, so at most one
 * block's output is held: 46 MiB at worst (900 000 run-length codes of 259
 * bytes each).
 *
 * @example
 * const bz = new Bunzip2();
 * for await (const bytes of bz.decode(createReadStream("export.xml.bz2"))) hash.update(bytes); // used before the next
 */
import bitIterator, { type BitReader } from "unbzip2-stream/lib/bit_iterator.js";
import { errorMessage } from "../../lib/errors.ts";
import bzip2 from "unbzip2-stream/lib/bzip2.js";

const OUTPUT_CHUNK = 1 << 16;

export class Bzip2Error extends Error {
  override readonly name = "Bzip2Error";
}

/**
 * Decodes one block into `pool`'s 64 KiB buffers, adding buffers as needed;
 * returns the stream CRC so far (null at the end-of-stream marker) and the
 * bytes written.
 */
function decodeBlock(
  bits: BitReader,
  scratch: Int32Array,
  streamCrc: number,
  pool: Buffer[],
): { crc: number | null; bytes: number } {
  let index = 0;
  let chunk = pool[0] ?? (pool[0] = Buffer.allocUnsafe(OUTPUT_CHUNK));
  let used = 0;
  const write = (byte: number) => {
    if (used === OUTPUT_CHUNK) {
      index++;
      chunk = pool[index] ?? (pool[index] = Buffer.allocUnsafe(OUTPUT_CHUNK));
      used = 0;
    }
    chunk[used++] = byte;
  };
  try {
    const crc = bzip2.decompress(bits, write, scratch, scratch.length, streamCrc);
    return { crc, bytes: index * OUTPUT_CHUNK + used };
  } catch (err) {
    throw err instanceof Bzip2Error ? err : new Bzip2Error(errorMessage(err).replace(/^Error in bzip2: /, ""));
  }
}

export class Bunzip2 {
  /** Compressed bytes read so far: where decoding stopped, if it failed. */
  bytesRead = 0;

  /**
   * The decoded bytes. Each buffer is valid only until the next one is asked
   * for: the decoder writes the next block over it. Copies would cost as much
   * again in garbage, freed only when V8 gets to it (40 MB more at peak).
   */
  async *decode(input: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    const source = input[Symbol.asyncIterator]();
    const queue: Uint8Array[] = [];
    let received = 0;
    let ended = false;
    let bits: BitReader | null = null;
    /** Level of the stream being read (0 between streams): its blocks hold up to level × 100 000 symbols. */
    let level = 0;
    let streamCrc = 0;
    let scratch = new Int32Array(0);
    /** Output buffers, reused block after block. */
    const pool: Buffer[] = [];
    const unread = () => received - (bits?.bytesRead ?? 0);
    try {
      while (true) {
        // A block is decoded in one synchronous call, so all of it must be here
        // first: never more than 25 000 + level × 100 000 bytes (unbzip2-stream's bound).
        const needed = level === 0 ? 4 : 25_000 + 100_000 * level;
        while (!ended && unread() < needed) {
          const next = await source.next();
          if (next.done) ended = true;
          else if (next.value.byteLength > 0) {
            queue.push(next.value);
            received += next.value.byteLength;
          }
        }
        if (unread() <= 0) break;
        bits ??= bitIterator(() => {
          const next = queue.shift();
          if (next) return next;
          throw new Bzip2Error(
            ended ? "the data ends in the middle of a block" : `a block is longer than ${needed} bytes`,
          );
        });
        try {
          if (level === 0) {
            level = bzip2.header(bits);
            streamCrc = 0;
            if (scratch.length !== level * 100_000) scratch = new Int32Array(level * 100_000);
            continue;
          }
          const { crc, bytes } = decodeBlock(bits, scratch, streamCrc, pool);
          if (crc === null)
            level = 0; // the end of this stream; another may follow
          else streamCrc = crc;
          this.bytesRead = bits.bytesRead;
          // Views into the pool, which the next block reuses (hence the contract on decode()).
          for (let at = 0; at < bytes; at += OUTPUT_CHUNK)
            yield pool[at / OUTPUT_CHUNK]!.subarray(0, Math.min(OUTPUT_CHUNK, bytes - at));
        } finally {
          this.bytesRead = bits.bytesRead;
        }
      }
      if (level !== 0) throw new Bzip2Error("the data ends before the end-of-stream marker");
    } finally {
      // Stopped early (the reader is done, or failed): close the input too.
      if (!ended) await source.return?.();
    }
  }
}
