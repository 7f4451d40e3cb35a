/**
 * Encodes and decodes one layout record: a brotli stream over one or more
 * revisions, against a raw prefix dictionary made of decoded anchors; or, for
 * a group cut to a decode budget, several such streams back to back, some
 * perhaps without the dictionary (group-streams.ts decides the cut).
 */
import { brotliCompress, brotliDecompressKnownSize } from "../codec/index.ts";
import { concatChunks } from "../codec/runtime/stream-io.ts";
import { sha256Hex } from "../lib/digests.ts";
import type { RecordMeta } from "./blob-format.ts";
import type { LayoutParams } from "./layout.ts";

export interface EncodedRecord {
  meta: Omit<RecordMeta, "off" | "len">;
  payload: Uint8Array;
}

/** One stream of a cut group: how many consecutive parts it holds, and whether it does without the dictionary. */
export interface StreamCut {
  parts: number;
  plain: boolean;
}

/**
 * The raw prefix dictionary made of these anchors, or none when they hold no bytes (blanked pages make empty anchors).
 */
function dictionaryOf(anchors: Uint8Array[]): Uint8Array | undefined {
  const bytes = concatChunks(anchors);
  return bytes.byteLength > 0 ? bytes : undefined;
}

function compressStream(body: Uint8Array, dictionary: Uint8Array | undefined, params: LayoutParams): Uint8Array {
  return brotliCompress(body, {
    quality: dictionary === undefined ? params.keyframeQuality : params.quality,
    lgwin: params.lgwin,
    mode: "text",
    dictionary,
  });
}

/**
 * `cut`: the group's streams, in order (absent: one stream with the dictionary, the format every record had before).
 */
export async function encodeRecord(
  id: string,
  parts: Uint8Array[],
  dict: { ids: string[]; bytes: Uint8Array[] },
  params: LayoutParams,
  cut?: readonly StreamCut[],
): Promise<EncodedRecord> {
  const body = concatChunks(parts);
  const dictionary = dictionaryOf(dict.bytes);
  const meta: EncodedRecord["meta"] = {
    id,
    size: body.byteLength,
    parts: parts.map((p) => p.byteLength),
    dict: dict.ids,
    sum: (await sha256Hex(body)).slice(0, 16),
  };
  if (!cut || (cut.length === 1 && !cut[0]!.plain)) return { meta, payload: compressStream(body, dictionary, params) };
  if (cut.reduce((n, c) => n + c.parts, 0) !== parts.length)
    throw new Error(`record ${id}: the cut covers ${cut.reduce((n, c) => n + c.parts, 0)} parts of ${parts.length}`);
  const payloads: Uint8Array[] = [];
  let first = 0;
  for (const c of cut) {
    payloads.push(
      compressStream(concatChunks(parts.slice(first, first + c.parts)), c.plain ? undefined : dictionary, params),
    );
    first += c.parts;
  }
  const plain = cut.flatMap((c, i) => (c.plain ? [i] : []));
  return {
    meta: {
      ...meta,
      streams: cut.map((c) => c.parts),
      lens: payloads.map((p) => p.byteLength),
      ...(plain.length > 0 ? { plain } : {}),
    },
    payload: concatChunks(payloads),
  };
}

export class RecordCorruptError extends Error {
  override readonly name = "RecordCorruptError";
}

/**
 * The stream of a record that holds part `part`: where its payload lies, its first part, and whether it needs the
 * dictionary.
 */
export interface StreamOfPart {
  /** Byte range of the stream within the record's payload. */
  off: number;
  len: number;
  /** Index of the stream's first part among the record's parts. */
  firstPart: number;
  /** Decoded bytes of the stream's parts up to and including `part`. */
  through: number;
  /** Decoded bytes of the whole stream. */
  size: number;
  plain: boolean;
}

export function streamOf(meta: RecordMeta, part: number): StreamOfPart {
  if (part < 0 || part >= meta.parts.length) throw new RecordCorruptError(`record ${meta.id} has no part ${part}`);
  const sizeUpTo = (from: number) => meta.parts.slice(from, part + 1).reduce((a, b) => a + b, 0);
  if (!meta.streams)
    return { off: 0, len: meta.len, firstPart: 0, through: sizeUpTo(0), size: meta.size, plain: false };
  const lens = meta.lens ?? [];
  if (meta.streams.length !== lens.length || meta.streams.reduce((a, b) => a + b, 0) !== meta.parts.length)
    throw new RecordCorruptError(`record ${meta.id}: its streams do not cover its parts`);
  let firstPart = 0;
  let off = 0;
  for (let i = 0; i < meta.streams.length; i++) {
    const count = meta.streams[i]!;
    if (part < firstPart + count) {
      const size = meta.parts.slice(firstPart, firstPart + count).reduce((a, b) => a + b, 0);
      return {
        off,
        len: lens[i]!,
        firstPart,
        through: sizeUpTo(firstPart),
        size,
        plain: meta.plain?.includes(i) ?? false,
      };
    }
    firstPart += count;
    off += lens[i]!;
  }
  throw new RecordCorruptError(`record ${meta.id} has no stream for part ${part}`);
}

/**
 * Decodes a record, or only its first `prefixBytes` bytes: a group stream is
 * decoded just far enough to reach the revision asked for. For one stream of
 * a cut record (its payload and size from {@link streamOf}), `streamSize` is
 * given: the record's checksum covers all its streams, so only the caller's
 * check of the revision itself applies.
 */
export async function decodeRecord(
  meta: RecordMeta,
  payload: Uint8Array,
  dict: Uint8Array[],
  prefixBytes = meta.size,
  streamSize?: number,
): Promise<Uint8Array> {
  const whole = streamSize === undefined;
  // Decoding to the end reads the whole payload, even when nothing is left to produce (an empty revision).
  const toEnd = prefixBytes >= (streamSize ?? meta.size);
  const size = toEnd ? (streamSize ?? meta.size) : prefixBytes;
  const bytes = brotliDecompressKnownSize(payload, size, { dictionary: dictionaryOf(dict), whole: toEnd });
  // `size` is at most prefixBytes, so what comes back is the prefix or less.
  if (bytes.byteLength < prefixBytes)
    throw new RecordCorruptError(`record ${meta.id} decoded to ${bytes.byteLength} bytes, expected ${prefixBytes}`);
  if (whole && prefixBytes === meta.size && (await sha256Hex(bytes)).slice(0, 16) !== meta.sum) {
    throw new RecordCorruptError(`record ${meta.id} does not match its checksum`);
  }
  return bytes;
}
