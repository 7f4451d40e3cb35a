/**
 * Reads one stored content: at most two blob reads (the page's anchors blob
 * and the blob holding the record) and a bounded number of decodes, whatever
 * the length of the history. The result is checked against the revision's
 * SHA-256, so corruption surfaces as an error, never as wrong bytes.
 */
import { HopTimer, type HopTimings } from "../http/server-timing.ts";
import { sha256Hex } from "../lib/digests.ts";
import { parsedBlob } from "./blob-cache.ts";
import type { ParsedBlob } from "./blob-format.ts";
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

/** `timings`: the read's blob, decode and hash hops (src/http/server-timing.ts). */
export async function readContent(
  store: BlobStore,
  loc: ContentLocation,
): Promise<{ bytes: Uint8Array; stats: ReadStats; timings: HopTimings }> {
  const timer = new HopTimer();
  const keys = [...new Set([loc.anchorsBlob, loc.blob])];
  const parsed = await timer.time("blob", () => Promise.all(keys.map((k) => parsedBlob(store, k))));
  const decodeStart = performance.now();
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
  timer.add("decode", performance.now() - decodeStart);
  if ((await timer.time("hash", () => sha256Hex(bytes))) !== loc.sha256)
    throw new RecordCorruptError(`record ${loc.record} decoded to bytes that do not match the revision's SHA-256`);
  return { bytes, stats, timings: timer.timings };
}

/** Decoded anchors an in-order read keeps for the streams that follow, before it starts afresh. */
const HELD_ANCHOR_BYTES = 16 * 1024 * 1024;

/**
 * Reads contents in the order given, for an export: consecutive contents of
 * one stream (a group's revisions, in history order) are cut out of one
 * decode of that stream, where {@link readContent} would decode its prefix
 * once per revision, about eight times the bytes for a group of 16. Holds
 * one stream's decode and a bounded set of decoded anchors at a time, so
 * memory stays bounded whatever the length of the history. Each content is
 * checked against its SHA-256, as a single read is.
 */
export async function* readContentsInOrder(
  store: BlobStore,
  locations: readonly ContentLocation[],
): AsyncGenerator<Uint8Array> {
  let held: { blob: string; record: string; firstPart: number; bytes: Uint8Array } | null = null;
  let anchors: { blob: string; decoder: AnchorDecoder } | null = null;
  // The anchors blob and the current holder are kept here too: a blob too big for the isolate's cache
  // (src/storage/blob-cache.ts) would otherwise be fetched and parsed again for every content it holds.
  const kept: { anchors?: [string, ParsedBlob]; holder?: [string, ParsedBlob] } = {};
  const keep = async (slot: "anchors" | "holder", key: string): Promise<ParsedBlob> => {
    const hit = kept[slot];
    if (hit?.[0] === key) return hit[1];
    const blob = await parsedBlob(store, key);
    kept[slot] = [key, blob];
    return blob;
  };
  for (const loc of locations) {
    const anchorsParsed = await keep("anchors", loc.anchorsBlob);
    const holder = loc.blob === loc.anchorsBlob ? anchorsParsed : await keep("holder", loc.blob);
    const meta = holder.records.get(loc.record);
    if (!meta) throw new RecordCorruptError(`record ${loc.record} is not in blob ${loc.blob}`);
    if (!anchors || anchors.blob !== loc.anchorsBlob || anchors.decoder.decodedBytes > HELD_ANCHOR_BYTES)
      anchors = { blob: loc.anchorsBlob, decoder: new AnchorDecoder(anchorsParsed) };
    let bytes: Uint8Array;
    if (holder === anchorsParsed && loc.record.startsWith("a")) {
      bytes = await anchors.decoder.anchor(loc.record);
    } else {
      const stream = streamOf(meta, loc.part);
      if (!held || held.blob !== loc.blob || held.record !== loc.record || held.firstPart !== stream.firstPart) {
        // The whole stream: the contents after this one are most likely the next ones asked for.
        held = null;
        const dict = stream.plain ? [] : await anchors.decoder.dictionary(meta.dict);
        const payload = holder.payload(meta).subarray(stream.off, stream.off + stream.len);
        const size = meta.streams ? stream.size : meta.size;
        const decoded = await decodeRecord(meta, payload, dict, size, meta.streams ? stream.size : undefined);
        held = { blob: loc.blob, record: loc.record, firstPart: stream.firstPart, bytes: decoded };
      }
      // `through` ends the content within its stream (or, unstreamed, within the record).
      bytes = held.bytes.subarray(stream.through - meta.parts[loc.part]!, stream.through);
    }
    if ((await sha256Hex(bytes)) !== loc.sha256)
      throw new RecordCorruptError(`record ${loc.record} decoded to bytes that do not match the revision's SHA-256`);
    yield bytes;
  }
}
