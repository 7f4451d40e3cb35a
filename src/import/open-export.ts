/**
 * Opens an export file as a stream of bytes, undoing its compression:
 * plain, `.gz`, `.br` or `.bz2`, recognised by the file's magic bytes first
 * and its extension second (a `.br` stream has no magic).
 */
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip } from "node:zlib";
import bz2 from "unbzip2-stream";

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

export async function openExport(path: string, onRawBytes?: (n: number) => void): Promise<Readable> {
  const compression = await detectCompression(path);
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  if (onRawBytes) file.on("data", (chunk) => onRawBytes((chunk as Buffer).byteLength));
  if (compression === "none") return file;
  const decoded =
    compression === "gzip"
      ? file.pipe(createGunzip())
      : compression === "brotli"
        ? file.pipe(createBrotliDecompress())
        : // unbzip2-stream is a classic (through) stream, not async-iterable: wrap it.
          new Readable().wrap(file.pipe(bz2()));
  // A read error reaches the consumer; a decoding error just stops the reading
  // (destroying the file with it would raise it again where nobody listens).
  file.on("error", (err) => decoded.destroy(err));
  decoded.on("error", () => file.destroy());
  return decoded;
}
