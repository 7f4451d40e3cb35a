/**
 * The reduced static-dictionary table format (`.psd`, "Palimpsest static
 * dictionary"): which (word, transform) pairs of brotli's built-in dictionary
 * an encoder may search for one content type. The encoder side
 * (src/codec/brotli/reduced-dictionary.ts) prepares its search structures
 * from these bytes; the trainer (src/tools/dict/) writes them.
 *
 * Layout, little-endian:
 *   "PSD1"            4 bytes, magic
 *   count             u32
 *   count entries of 4 bytes each:
 *     word_length     u8   4..24
 *     word_index      u16  index within that length's block of the dictionary
 *     transform_id    u8   0..120 (RFC 7932 Appendix B)
 *
 * Entries are written sorted by (length, index, transform) with no
 * duplicates, so one set of pairs has exactly one encoding: equal tables are
 * equal bytes, which is what `npm run build:dict -- --check` compares.
 *
 * @example
 * const bytes = encodeTable([{ length: 4, index: 12, transform: 0 }]);
 * decodeTable(bytes); // [{ length: 4, index: 12, transform: 0 }]
 */
import { LIMITS } from "../../limits.ts";
import {
  DICTIONARY_TRANSFORMS,
  DICTIONARY_WORD_BITS,
  REDUCED_TABLE_ENTRY_BYTES,
  REDUCED_TABLE_HEADER_BYTES,
  REDUCED_TABLE_MAGIC,
  REDUCED_TABLE_MAX_ENTRIES,
} from "../brotli/reduced-dictionary.ts";

export interface TableEntry {
  /** Word length in bytes, 4..24. */
  length: number;
  /** Index of the word among the dictionary's words of that length. */
  index: number;
  /** RFC 7932 transform id, 0..120. */
  transform: number;
}

// The format's constants are the encoder's (one definition of the contract).
const TABLE_MAGIC = REDUCED_TABLE_MAGIC;
const TABLE_HEADER_BYTES = REDUCED_TABLE_HEADER_BYTES;
const TABLE_ENTRY_BYTES = REDUCED_TABLE_ENTRY_BYTES;
const TRANSFORM_COUNT = DICTIONARY_TRANSFORMS;

export const MIN_WORD_LENGTH = 4;
export const MAX_WORD_LENGTH = 24;

/** Words of `length` in the built-in dictionary (0 outside 4..24). */
export function wordCount(length: number): number {
  const bits = DICTIONARY_WORD_BITS[length] ?? 0;
  return bits === 0 ? 0 : 1 << bits;
}

/** A table that is not a well-formed `.psd`. */
export class TableFormatError extends Error {
  override name = "TableFormatError";
}

/** Sort order of a table, and the trainer's tie-break: (length, index, transform). */
export function compareEntries(a: TableEntry, b: TableEntry): number {
  return a.length - b.length || a.index - b.index || a.transform - b.transform;
}

/** One number per pair, ordered as compareEntries orders pairs: a Map/Set key. */
export function entryKey(e: TableEntry): number {
  return (e.length << 24) | (e.index << 8) | e.transform;
}

export function entryOfKey(key: number): TableEntry {
  return { length: key >>> 24, index: (key >>> 8) & 0xffff, transform: key & 0xff };
}

function checkEntry(e: TableEntry, where: string): void {
  if (!Number.isInteger(e.length) || e.length < MIN_WORD_LENGTH || e.length > MAX_WORD_LENGTH) {
    throw new TableFormatError(`${where}: word length ${e.length} is outside ${MIN_WORD_LENGTH}..${MAX_WORD_LENGTH}`);
  }
  if (!Number.isInteger(e.index) || e.index < 0 || e.index >= wordCount(e.length)) {
    throw new TableFormatError(
      `${where}: word index ${e.index} is outside 0..${wordCount(e.length) - 1} for length ${e.length}`,
    );
  }
  if (!Number.isInteger(e.transform) || e.transform < 0 || e.transform >= TRANSFORM_COUNT) {
    throw new TableFormatError(`${where}: transform ${e.transform} is outside 0..${TRANSFORM_COUNT - 1}`);
  }
}

/** Every pair there is (13,504 words x 121 transforms): the trainer's candidate tables may list them all. */
export const ALL_PAIRS = REDUCED_TABLE_MAX_ENTRIES;

export interface TableLimits {
  /**
   * Most entries accepted; default LIMITS.staticDict.maxTableEntries (tables for the edge). Candidate tables pass
   * ALL_PAIRS.
   */
  maxEntries?: number;
}

function checkCount(count: number, limits: TableLimits): void {
  const max = limits.maxEntries ?? LIMITS.staticDict.maxTableEntries;
  if (count > max) {
    throw new TableFormatError(
      `${count} entries exceeds ${limits.maxEntries === undefined ? "staticDict.maxTableEntries" : "the limit"} (${max})`,
    );
  }
}

/** The canonical bytes of a set of pairs: sorted, duplicates dropped. */
export function encodeTable(entries: Iterable<TableEntry>, limits: TableLimits = {}): Uint8Array {
  const unique = new Map<number, TableEntry>();
  for (const e of entries) {
    checkEntry(e, "entry");
    unique.set(entryKey(e), e);
  }
  const sorted = [...unique.values()].sort(compareEntries);
  checkCount(sorted.length, limits);
  const out = new Uint8Array(TABLE_HEADER_BYTES + sorted.length * TABLE_ENTRY_BYTES);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(TABLE_MAGIC), 0);
  view.setUint32(4, sorted.length, true);
  sorted.forEach((e, i) => {
    const at = TABLE_HEADER_BYTES + i * TABLE_ENTRY_BYTES;
    view.setUint8(at, e.length);
    view.setUint16(at + 1, e.index, true);
    view.setUint8(at + 3, e.transform);
  });
  return out;
}

/** Reads and validates a table; it must be canonical (sorted, no duplicates, no trailing bytes). */
export function decodeTable(bytes: Uint8Array, limits: TableLimits = {}): TableEntry[] {
  if (bytes.byteLength < TABLE_HEADER_BYTES || new TextDecoder().decode(bytes.subarray(0, 4)) !== TABLE_MAGIC) {
    throw new TableFormatError(`not a ${TABLE_MAGIC} table (bad magic or shorter than ${TABLE_HEADER_BYTES} bytes)`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(4, true);
  checkCount(count, limits);
  const expected = TABLE_HEADER_BYTES + count * TABLE_ENTRY_BYTES;
  if (bytes.byteLength !== expected) {
    throw new TableFormatError(`table says ${count} entries (${expected} bytes) but has ${bytes.byteLength} bytes`);
  }
  const entries: TableEntry[] = [];
  for (let i = 0; i < count; i++) {
    const at = TABLE_HEADER_BYTES + i * TABLE_ENTRY_BYTES;
    const e = { length: view.getUint8(at), index: view.getUint16(at + 1, true), transform: view.getUint8(at + 3) };
    checkEntry(e, `entry ${i}`);
    if (i > 0 && compareEntries(entries[i - 1]!, e) >= 0)
      throw new TableFormatError(`entry ${i} is out of order or repeated`);
    entries.push(e);
  }
  return entries;
}
