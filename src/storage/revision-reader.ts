/**
 * Reads one stored content: at most two blob reads (the page's anchors blob
 * and the blob holding the record) and a bounded number of decodes, whatever
 * the length of the history. The result is checked against the revision's
 * SHA-256, so corruption surfaces as an error, never as wrong bytes.
 */
import { sha256Hex } from "../lib/digests.ts";
import { parsedBlob } from "./blob-cache.ts";
import type { BlobStore } from "./blob-store.ts";
import { AnchorDecoder } from "./anchor-decoder.ts";
import { decodeRecord, RecordCorruptError, streamOf } from "./record-codec.ts";

/** Where a content lives; the PageStore hands this to readers. */
export interface ContentLocation {
  /** Record id: `a<k>`, `g<k>` or `t<u>`. */
  record: string;
  /** The blob holding the record. */
  blob: string;
  /** The page's anchors blob (may equal `blob`). */
  anchorsBlob: string;
  /** Index of the content among the record's parts. */
  part: number;
  /** Expected SHA-256 (hex) of the content. */
  sha256: string;
}

export interface ReadStats {
  /** Blobs the read needed (at most two); an isolate may already hold them parsed. */
  blobReads: number;
  decodes: number;
  decodedBytes: number;
}

export async function readContent(
  store: BlobStore,
  loc: ContentLocation,
): Promise<{ bytes: Uint8Array; stats: ReadStats }> {
  const keys = [...new Set([loc.anchorsBlob, loc.blob])];
  const parsed = await Promise.all(keys.map((k) => parsedBlob(store, k)));
  const blobs = new Map(keys.map((k, i) => [k, parsed[i]!]));
  const anchors = new AnchorDecoder(blobs.get(loc.anchorsBlob)!);
  const holder = blobs.get(loc.blob)!;
  const meta = holder.records.get(loc.record);
  if (!meta) throw new RecordCorruptError(`record ${loc.record} is not in blob ${loc.blob}`);
  const stats: ReadStats = { blobReads: keys.length, decodes: 0, decodedBytes: 0 };
  let bytes: Uint8Array;
  if (holder === blobs.get(loc.anchorsBlob) && loc.record.startsWith("a")) {
    bytes = await anchors.anchor(loc.record);
  } else {
    const stream = streamOf(meta, loc.part);
    const dict = stream.plain ? [] : await anchors.dictionary(meta.dict);
    const payload = holder.payload(meta).subarray(stream.off, stream.off + stream.len);
    const prefix = await decodeRecord(meta, payload, dict, stream.through, meta.streams ? stream.size : undefined);
    stats.decodes++;
    stats.decodedBytes += prefix.byteLength;
    bytes = prefix.subarray(prefix.byteLength - meta.parts[loc.part]!);
  }
  stats.decodes += anchors.decodes;
  stats.decodedBytes += anchors.decodedBytes;
  if ((await sha256Hex(bytes)) !== loc.sha256)
    throw new RecordCorruptError(`record ${loc.record} decoded to bytes that do not match the revision's SHA-256`);
  return { bytes, stats };
}
