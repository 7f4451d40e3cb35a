/**
 * Encodes and decodes one layout record: a brotli stream over one or more
 * revisions, against a raw prefix dictionary made of decoded anchors.
 */
import { BrotliDecoder, brotliCompress } from "../codec/index.ts";
import { concatChunks } from "../codec/runtime/stream-io.ts";
import { sha256Hex } from "../hash/digests.ts";
import type { RecordMeta } from "./blob-format.ts";
import type { LayoutParams } from "./layout.ts";

export interface EncodedRecord {
  meta: Omit<RecordMeta, "off" | "len">;
  payload: Uint8Array;
}

export async function encodeRecord(
  id: string,
  parts: Uint8Array[],
  dict: { ids: string[]; bytes: Uint8Array[] },
  params: LayoutParams,
): Promise<EncodedRecord> {
  const body = concatChunks(parts);
  const dictionary = dict.bytes.length > 0 ? concatChunks(dict.bytes) : undefined;
  const keyframe = dictionary === undefined;
  const payload = brotliCompress(body, {
    quality: keyframe ? params.keyframeQuality : params.quality,
    lgwin: params.lgwin,
    mode: "text",
    dictionary,
  });
  return {
    meta: { id, size: body.byteLength, parts: parts.map((p) => p.byteLength), dict: dict.ids, sum: (await sha256Hex(body)).slice(0, 16) },
    payload,
  };
}

export class RecordCorruptError extends Error {
  override readonly name = "RecordCorruptError";
}

/**
 * Decodes a record, or only its first `prefixBytes` bytes: a group stream is
 * decoded just far enough to reach the revision asked for.
 */
export async function decodeRecord(meta: RecordMeta, payload: Uint8Array, dict: Uint8Array[], prefixBytes = meta.size): Promise<Uint8Array> {
  const decoder = new BrotliDecoder({ maxOutputBytes: meta.size, dictionary: dict.length > 0 ? concatChunks(dict) : undefined });
  const out: Uint8Array[] = [];
  let produced = 0;
  const slice = 16 * 1024;
  try {
    for (let off = 0; off < payload.byteLength && produced < prefixBytes; off += slice) {
      for (const chunk of decoder.push(payload.subarray(off, off + slice))) {
        out.push(chunk);
        produced += chunk.byteLength;
      }
    }
    if (prefixBytes >= meta.size) decoder.finish();
  } finally {
    decoder.dispose();
  }
  if (produced < prefixBytes) throw new RecordCorruptError(`record ${meta.id} decoded to ${produced} bytes, expected ${prefixBytes}`);
  const bytes = concatChunks(out).subarray(0, prefixBytes);
  if (prefixBytes === meta.size && (await sha256Hex(bytes)).slice(0, 16) !== meta.sum) {
    throw new RecordCorruptError(`record ${meta.id} does not match its checksum`);
  }
  return bytes;
}
