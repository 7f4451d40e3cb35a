/**
 * A revision's descriptive metadata (contributor, comment, hashes, sizes,
 * model, tags), kept in one compressed record per block of
 * {@link META_BLOCK} consecutive revisions instead of in SQLite columns of
 * its own: the PageStore's budget is bytes per block, not per revision
 * (durable-objects/page-store.md, "Byte budget").
 *
 * Why brotli of JSON: within a block the repeated values (contributor,
 * model, format, the common part of comments) are interned by the
 * compressor's back-references for free, its built-in dictionary knows the
 * words commit messages and edit summaries are made of (bip-0340's 13
 * records: 20,756 bytes as level-9 deflate, 19,672 as brotli q9), the
 * hashes are the only thing it cannot shrink, and reading one revision's metadata costs one small
 * synchronous decode (a block is a few KB at most), so the PageStore's RPC
 * methods stay synchronous.
 *
 * Record bytes: u8 format (1; any other is refused), then brotli (quality 9, text mode) of the
 * JSON array of entries, entry i for revision seq = block * META_BLOCK + 1 + i.
 */
import { brotliCompress, brotliDecompress } from "../codec/index.ts";
import { errorMessage } from "../lib/errors.ts";
import { LIMITS } from "../limits.ts";
import type { RevisionMeta } from "../page/types.ts";

/** Revisions per record. */
export const META_BLOCK = 16;
const FORMAT_BROTLI_JSON = 1;

/** What a record keeps of one revision: its metadata, less what the indexed row holds (id, time, suppression). */
export type MetaEntry = Omit<RevisionMeta, "id" | "timestamp" | "suppressed">;

type Packed =
  | [number | null, string, string, string, string, number, string, string, string[]]
  | [number | null, string, string, string, string, number, string, string];

export const blockOf = (seq: number): number => Math.floor((seq - 1) / META_BLOCK);
export const slotOf = (seq: number): number => (seq - 1) % META_BLOCK;

/**
 * Quality 9, window 2^18: measured on w3c-aria's 55 records, about 1 ms a
 * record and 1,649 bytes, where quality 11 took 10 ms for 1,520. A commit
 * re-encodes every record it touches (a bulk import all of them), so the
 * tenfold CPU was not worth 8 % of the records' bytes.
 */
const RECORD_QUALITY = 9;
const RECORD_LGWIN = 18;

export function encodeMetaRecord(entries: readonly MetaEntry[]): ArrayBuffer {
  const packed: Packed[] = entries.map((e) => {
    const head: Packed = [e.parentId, e.contributor, e.comment, e.model, e.format, e.bytes, e.sha1, e.sha256];
    return e.tags.length > 0 ? [...head, e.tags] : head;
  });
  const body = brotliCompress(new TextEncoder().encode(JSON.stringify(packed)), {
    quality: RECORD_QUALITY,
    lgwin: RECORD_LGWIN,
    mode: "text",
  });
  const out = new Uint8Array(1 + body.byteLength);
  out[0] = FORMAT_BROTLI_JSON;
  out.set(body, 1);
  return out.buffer;
}

/** Thrown when a stored record cannot be read: the store is damaged, not the request. */
export class MetaRecordError extends Error {}

export function decodeMetaRecord(record: Uint8Array): MetaEntry[] {
  if (record[0] !== FORMAT_BROTLI_JSON)
    throw new MetaRecordError(`metadata record format ${record[0]} is not one this code reads`);
  let packed: Packed[];
  try {
    packed = JSON.parse(
      new TextDecoder().decode(
        brotliDecompress(record.subarray(1), { maxOutputBytes: LIMITS.storage.maxMetaRecordBytes }),
      ),
    ) as Packed[];
  } catch (err) {
    throw new MetaRecordError(`metadata record does not decode: ${errorMessage(err)}`);
  }
  return packed.map(([parentId, contributor, comment, model, format, bytes, sha1, sha256, tags]) => ({
    parentId,
    contributor,
    comment,
    model,
    format,
    bytes,
    sha1,
    sha256,
    tags: tags ?? [],
  }));
}
