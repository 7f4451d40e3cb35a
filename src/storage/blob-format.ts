/**
 * The self-describing container every blob in `BLOBS` uses (durable-objects/page-store.md, "Blob format"):
 *
 *   0  "PLMP"                 magic
 *   4  u8  format version     (1; any other is refused)
 *   5  u8  codec              (1 = brotli)
 *   6  u16 reserved           (0)
 *   8  u32 header length H    (little endian)
 *  12  u32 CRC-32 of bytes 16..end
 *  16  header: brotli of UTF-8 JSON { records: StoredMeta[] }
 *  16+H payloads, back to back
 *
 * The header leaves out what the rest implies (`off`: payloads are back to
 * back in record order; `size`: the sum of `parts`) and is compressed:
 * uncompressed and whole, headers were an eighth of a small page's blob
 * bytes.
 *
 * A record is one brotli stream. Its `dict` names the records (anchors) whose
 * decoded bytes, concatenated in order, are its raw prefix dictionary; its
 * `parts` split the decoded stream into revisions when several share it.
 */
import CRC32 from "crc-32";
import { brotliCompress, brotliDecompress } from "../codec/index.ts";
import { LIMITS } from "../limits.ts";

const BLOB_MAGIC = "PLMP";
const BLOB_FORMAT_VERSION = 1;
const CODEC_BROTLI = 1;
const FIXED = 16;
/**
 * Headers up to this size are compressed at quality 11, bigger ones at 9.
 * The anchors blob's header grows with the history and is rewritten by every
 * commit that adds an anchor: at 625 anchors (55 KB of JSON) quality 11 took
 * 159 ms a commit for 7.1 KB, quality 9 11 ms for 8.6 KB (an import of
 * 10,000 revisions went from 43 to 55 s at 11 throughout).
 */
const HEADER_Q11_MAX_BYTES = 16 * 1024;

export interface RecordMeta {
  /** Record id within the page: `a<k>` for anchors, `g<k>` for packed groups, `t<u>` for tail contents. */
  id: string;
  /** Byte range of the payload, relative to the start of the payloads. */
  off: number;
  len: number;
  /** Decoded length of the whole stream. */
  size: number;
  /** Decoded lengths of the revisions in the stream, in order (one entry for anchors and tails). */
  parts: number[];
  /** Anchor record ids forming the dictionary, in order. */
  dict: string[];
  /** First 16 hex digits of the SHA-256 of the decoded stream. */
  sum: string;
  /**
   * A group cut into several streams back to back (layout.ts, decodeBudget):
   * how many parts each holds. Absent: one stream holds every part.
   */
  streams?: number[];
  /** Payload bytes of each stream, in order (with `streams`). */
  lens?: number[];
  /** Indexes of the streams encoded without the dictionary (with `streams`). */
  plain?: number[];
  /**
   * On anchor k of a page with bounded brackets (layout.ts), once group k is closed: the most
   * anchor bytes a read of group k may decode (the least, over its members read with the
   * dictionary, of the budget less the stream up to the member). Absent: no member needs them.
   */
  room?: number;
}

export class BlobFormatError extends Error {
  override readonly name = "BlobFormatError";
}

export function encodeBlob(
  records: ReadonlyArray<{ meta: Omit<RecordMeta, "off" | "len">; payload: Uint8Array }>,
): Uint8Array {
  let off = 0;
  const metas: RecordMeta[] = records.map(({ meta, payload }) => {
    const m = { ...meta, off, len: payload.byteLength };
    off += payload.byteLength;
    return m;
  });
  const stored = metas.map(({ off: _off, size: _size, ...rest }) => rest);
  const json = new TextEncoder().encode(JSON.stringify({ records: stored }));
  const header = brotliCompress(json, { quality: json.byteLength <= HEADER_Q11_MAX_BYTES ? 11 : 9, mode: "text" });
  const out = new Uint8Array(FIXED + header.byteLength + off);
  out.set(new TextEncoder().encode(BLOB_MAGIC), 0);
  const view = new DataView(out.buffer);
  view.setUint8(4, BLOB_FORMAT_VERSION);
  view.setUint8(5, CODEC_BROTLI);
  view.setUint32(8, header.byteLength, true);
  out.set(header, FIXED);
  let at = FIXED + header.byteLength;
  for (const { payload } of records) {
    out.set(payload, at);
    at += payload.byteLength;
  }
  view.setUint32(12, CRC32.buf(out.subarray(FIXED)) >>> 0, true);
  return out;
}

export interface ParsedBlob {
  records: Map<string, RecordMeta>;
  payload(meta: RecordMeta): Uint8Array;
}

export function decodeBlob(bytes: Uint8Array): ParsedBlob {
  if (bytes.byteLength < FIXED)
    throw new BlobFormatError(`blob of ${bytes.byteLength} bytes is shorter than its header`);
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== BLOB_MAGIC)
    throw new BlobFormatError("blob does not start with PLMP");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint8(4);
  if (version !== BLOB_FORMAT_VERSION) throw new BlobFormatError(`blob format version ${version} is not supported`);
  if (view.getUint8(5) !== CODEC_BROTLI) throw new BlobFormatError(`blob codec ${view.getUint8(5)} is not supported`);
  if (CRC32.buf(bytes.subarray(FIXED)) >>> 0 !== view.getUint32(12, true))
    throw new BlobFormatError("blob checksum does not match: it is corrupt");
  const headerLength = view.getUint32(8, true);
  if (FIXED + headerLength > bytes.byteLength) throw new BlobFormatError("blob header runs past the end of the blob");
  const base = FIXED + headerLength;
  let parsed: { records: RecordMeta[] };
  try {
    const header = bytes.subarray(FIXED, base);
    parsed = JSON.parse(
      new TextDecoder().decode(brotliDecompress(header, { maxOutputBytes: LIMITS.storage.maxBlobHeaderBytes })),
    ) as typeof parsed;
  } catch {
    throw new BlobFormatError("blob header does not decode to JSON");
  }
  let off = 0;
  for (const r of parsed.records) {
    r.off = off;
    r.size = r.parts.reduce((a, b) => a + b, 0);
    off += r.len;
  }
  const records = new Map<string, RecordMeta>();
  for (const r of parsed.records) {
    if (base + r.off + r.len > bytes.byteLength)
      throw new BlobFormatError(`record ${r.id} runs past the end of the blob`);
    records.set(r.id, r);
  }
  return { records, payload: (m) => bytes.subarray(base + m.off, base + m.off + m.len) };
}
