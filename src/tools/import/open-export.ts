/**
 * Opens an export file as a stream of bytes, undoing its compression:
 * plain, `.gz`, `.br` or `.bz2`, recognised by the file's magic bytes first
 * and its extension second (a `.br` stream has no magic).
 *
 * @example
 * for await (const bytes of readExport("dump.xml.bz2")) decoder.decode(bytes, { stream: true });
 * // a truncated file: ExportReadError "dump.xml.bz2: the bzip2 data is truncated or corrupt (…) at byte 1048576 of the file"
 */
import { createReadStream } from "node:fs";
import { errorMessage } from "../../lib/errors.ts";
import { open } from "node:fs/promises";
import { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip } from "node:zlib";
import { Bunzip2 } from "./bunzip2.ts";

export type Compression = "none" | "gzip" | "brotli" | "bzip2";

export async function detectCompression(path: string): Promise<Compression> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    if (head[0] === 0x1f && head[1] === 0x8b) return "gzip";
    if (head.toString("latin1", 0, 3) === "BZh") return "bzip2";
    if (path.endsWith(".br")) return "brotli";
    return "none";
  } finally {
    await handle.close();
  }
}

/** The file could not be read or decoded to its end. Names the file and how far into it reading got. */
export class ExportReadError extends Error {
  override readonly name = "ExportReadError";

  constructor(
    readonly path: string,
    readonly compression: Compression,
    /** Bytes of the file (compressed, if it is) read or decoded when it failed. */
    readonly offset: number,
    cause: unknown,
  ) {
    const reason = errorMessage(cause);
    const what = compression === "none" ? "cannot read the file" : `the ${compression} data is truncated or corrupt`;
    super(`${path}: ${what} (${reason}) at byte ${offset} of the file`, { cause });
  }
}

interface Decoded {
  compression: Compression;
  file: Readable;
  /**
   * The bytes. A bzip2 decoder's buffers are valid only until the next is
   * asked for (see bunzip2.ts); zlib's and the file's stay valid.
   */
  chunks: AsyncIterable<Uint8Array>;
  /** Bytes of the file the decoder has consumed (read, for a plain file). */
  offset(): number;
}

async function openDecoded(path: string, onRawBytes?: (n: number) => void): Promise<Decoded> {
  const compression = await detectCompression(path);
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  if (onRawBytes) file.on("data", (chunk) => onRawBytes((chunk as Buffer).byteLength));
  switch (compression) {
    case "none":
      return { compression, file, chunks: file, offset: () => file.bytesRead };
    case "bzip2": {
      const bz = new Bunzip2();
      return { compression, file, chunks: bz.decode(file), offset: () => bz.bytesRead };
    }
    default: {
      const zlib = file.pipe(compression === "gzip" ? createGunzip() : createBrotliDecompress());
      return { compression, file, chunks: zlib, offset: () => zlib.bytesWritten };
    }
  }
}

async function* copies(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) yield Buffer.from(chunk);
}

/** The export's bytes as a stream, whose chunks stay valid however long they are kept. */
export async function openExport(path: string, onRawBytes?: (n: number) => void): Promise<Readable> {
  const { file, chunks } = await openDecoded(path, onRawBytes);
  if (chunks === file) return file;
  // A stream reads ahead of its consumer, so a bzip2 decoder's buffers are copied.
  const decoded = chunks instanceof Readable ? chunks : Readable.from(copies(chunks), { objectMode: false });
  // A read error reaches the consumer; a decoding error just stops the reading
  // (destroying the file with it would raise it again where nobody listens).
  file.on("error", (err) => decoded.destroy(err));
  decoded.on("error", () => file.destroy());
  return decoded;
}

/**
 * The export's bytes, for a consumer that reads them through and is done
 * with each chunk before it asks for the next (a bzip2 decoder reuses its
 * buffers). Any failure to read or decode the file comes out as an
 * {@link ExportReadError}.
 */
export async function* readExport(path: string, onRawBytes?: (n: number) => void): AsyncGenerator<Uint8Array> {
  const { compression, file, chunks, offset } = await openDecoded(path, onRawBytes);
  if (chunks instanceof Readable && chunks !== file) {
    // Whatever fails, the consumer hears it from the decoder, once.
    file.on("error", (err) => chunks.destroy(err));
    chunks.on("error", () => file.destroy());
  }
  try {
    for await (const chunk of chunks) yield chunk;
  } catch (err) {
    throw new ExportReadError(path, compression, offset(), err);
  }
}
