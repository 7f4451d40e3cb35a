/**
 * A reduced static dictionary for the brotli encoder: a table of (word,
 * transform) pairs of brotli's built-in dictionary that the encoder searches,
 * at qualities 5-9, wherever LZ77 found no match or only a poor one. The
 * output stays standard brotli (it only ever refers to the standard
 * dictionary with standard transforms), so every decoder reads it.
 *
 * Table format (`.psd`, little-endian), the contract with the trainer:
 *   "PSD1"          4 bytes, magic
 *   count           u32
 *   count entries of 4 bytes each:
 *     word_length   u8   4..24
 *     word_index    u16  index within that length's block of the dictionary (< 2^NDBITS[length])
 *     transform_id  u8   0..120 (RFC 7932 Appendix B)
 * Order and duplicates do not matter here (a duplicate costs nothing); the
 * trainer's canonical form is its own business. Transformed strings shorter
 * than 4 bytes are accepted but never searched (the search keys on 4 bytes).
 *
 * How the encoder searches (native/reduced_dict.c): at each position where
 * the best LZ77 (or stock dictionary) candidate could still be beaten, a
 * k=1 bloom filter on the next 4 bytes, then a hash of those 4 bytes to a
 * radix trie over every transformed string (prefix + transformed word +
 * suffix) with those 4 bytes; walking it gives every table string the input
 * starts with, longest last. Each is scored with brotli's own
 * BackwardReferenceScore (135 per byte covered, minus 30 per bit of the
 * dictionary distance) and the best replaces LZ77's choice only if it scores
 * strictly higher. Identical strings from different pairs keep the pair with
 * the smallest distance code. Without a reduced dictionary the encoder is
 * stock brotli, byte for byte.
 *
 * Preparing (building those structures in wasm memory) costs 2-8 ms per
 * 1,000 entries, so prepare each table once per isolate and reuse it:
 * {@link cachedReducedDictionary}. A prepared dictionary follows the brotli
 * heap: if the heap is retired (it trapped, or grew past
 * codec.recycleHeapBytes while idle), the next use prepares it again there.
 *
 * @example
 * const html = cachedReducedDictionary("html", () => HTML_TABLE_BYTES);
 * const br = brotliCompress(page, { quality: 5, reducedDictionary: html });
 *
 * // The trainer: which pairs would be used, and what each gains.
 * const events = traceDictionaryCandidates(page, { quality: 5, table: allPairsTable });
 */
import { CodecError, invalidArgument } from "../errors.ts";
import { LIMITS } from "../../limits.ts";
import { heapOf, withHeap, type WasmHeap } from "../runtime/heap.ts";
import type { HeapLease } from "../runtime/heap-lease.ts";
import { BrotliEncoder } from "./encoder.ts";
import type { BrotliMode } from "./options.ts";

export const REDUCED_TABLE_MAGIC = "PSD1";
export const REDUCED_TABLE_HEADER_BYTES = 8;
export const REDUCED_TABLE_ENTRY_BYTES = 4;
/** log2 of the number of dictionary words of each length (RFC 7932 NDBITS); 0 = no words of that length. */
export const DICTIONARY_WORD_BITS: readonly number[] = [
  0, 0, 0, 0, 10, 10, 11, 11, 10, 10, 10, 10, 10, 9, 9, 8, 7, 7, 8, 7, 7, 6, 6, 5, 5,
];
export const DICTIONARY_TRANSFORMS = 121;
/** Qualities at which the encoder searches a reduced dictionary; at others it is ignored (stock output). */
export const REDUCED_DICTIONARY_QUALITIES = { min: 5, max: 9 } as const;
/**
 * Most entries a table may hold: every distinct (word, transform) pair,
 * 13,504 words x 121 transforms. This is the format's own bound, not a tuning
 * knob. Measured (Node, fresh heap): 135,040 entries (all words x 10
 * transforms) prepare in 0.25-0.9 s into a 7 MiB structure, heap peak 11 MiB;
 * 540,160 (x 40) in 4.4 s, 25 MiB, peak 33 MiB. All 1,633,984 pairs take
 * over 64 MiB, past codec.recycleHeapBytes, so the heap is retired after each
 * use and the table prepared again every call (15 s): trace in batches of at
 * most about 40 transforms instead.
 */
export const REDUCED_TABLE_MAX_ENTRIES = 13_504 * DICTIONARY_TRANSFORMS;

/**
 * One trace event: the encoder used a reduced-dictionary pair at `position`.
 * Native layout, 16 bytes little-endian per record (reduced_dict.h):
 *   0 u32 position      byte offset in the input where the copy starts
 *   4 u16 word_index
 *   6 u8  word_length
 *   7 u8  transform_id
 *   8 u16 match_length  bytes of input the reference covers (the transformed word's length)
 *  10 u16 reserved (0)
 *  12 i32 score_gain    candidate score minus the best score brotli had at that
 *                       position without the reduced dictionary (LZ77 and its
 *                       own static-dictionary search), BackwardReferenceScore
 *                       units: 135 per literal byte saved, 30 per distance bit
 * Only references the encoder actually emitted are recorded (not candidates
 * that lost to a lazy match one byte later), in input order.
 */
export interface DictionaryCandidateEvent {
  position: number;
  wordLength: number;
  wordIndex: number;
  transformId: number;
  matchLength: number;
  scoreGain: number;
}

export const TRACE_RECORD_BYTES = 16;

interface HeapCopy {
  heap: WasmHeap;
  handle: number;
}

/** A validated table and its prepared search structure in the brotli heap. */
export class ReducedDictionary {
  readonly table: Uint8Array;
  /** Entries in the table. */
  readonly entries: number;
  #copy?: HeapCopy;

  private constructor(table: Uint8Array, entries: number) {
    this.table = table;
    this.entries = entries;
  }

  /** Validates `table` (CodecError BAD_DICTIONARY naming what is wrong) and prepares it in the brotli heap. */
  static prepare(table: Uint8Array): ReducedDictionary {
    const entries = checkReducedTable(table);
    const dict = new ReducedDictionary(table, entries);
    withHeap("brotli", (heap) => dict.handleIn(heap));
    return dict;
  }

  /** The prepared BrotliReducedDictionary* valid in `heap`, prepared there on first use. */
  handleIn(heap: WasmHeap): number {
    if (this.#copy?.heap === heap && !heap.broken) return this.#copy.handle;
    const data = heap.copyIn(this.table);
    let handle: number;
    try {
      handle =
        heap.call("BrotliReducedDictionaryPrepare", () =>
          heap.fn.BrotliReducedDictionaryPrepare!(data, this.table.byteLength),
        ) >>> 0;
    } finally {
      heap.free(data);
    }
    // The table was validated above, so NULL can only mean malloc failed.
    if (handle === 0)
      throw new CodecError(
        "OUT_OF_MEMORY",
        `could not prepare a reduced dictionary of ${this.entries} entries in the wasm heap`,
      );
    this.#copy = { heap, handle };
    return handle;
  }

  /** Bytes of wasm heap the prepared structure holds in the current brotli heap (0 if not prepared there). */
  preparedBytes(): number {
    const heap = heapOf("brotli");
    if (this.#copy?.heap !== heap) return 0;
    const handle = this.#copy.handle;
    return heap.fn.BrotliReducedDictionaryMemory!(handle) >>> 0;
  }

  /** Frees the prepared structure. Encoders using it must be finished first. */
  dispose(): void {
    const copy = this.#copy;
    this.#copy = undefined;
    if (copy && !copy.heap.broken) copy.heap.fn.BrotliReducedDictionaryDestroy!(copy.handle);
  }
}

const cache = new Map<string, ReducedDictionary>();

/**
 * The isolate's prepared dictionary for `key`, prepared from `load()` on
 * first use only: "built once per isolate, not per call". A table that fails
 * to prepare is not cached, so the error repeats for every caller.
 */
export function cachedReducedDictionary(key: string, load: () => Uint8Array): ReducedDictionary {
  let dict = cache.get(key);
  if (!dict) {
    dict = ReducedDictionary.prepare(load());
    cache.set(key, dict);
  }
  return dict;
}

/** Throws BAD_DICTIONARY unless `table` is a well-formed PSD1 table; returns its entry count. */
export function checkReducedTable(table: Uint8Array): number {
  const bad = (why: string) => new CodecError("BAD_DICTIONARY", `reduced dictionary table: ${why}`);
  if (
    table.byteLength < REDUCED_TABLE_HEADER_BYTES ||
    new TextDecoder().decode(table.subarray(0, 4)) !== REDUCED_TABLE_MAGIC
  ) {
    throw bad(`bad magic (want "${REDUCED_TABLE_MAGIC}" and at least ${REDUCED_TABLE_HEADER_BYTES} bytes)`);
  }
  const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
  const count = view.getUint32(4, true);
  if (count > REDUCED_TABLE_MAX_ENTRIES)
    throw bad(`${count} entries exceeds the ${REDUCED_TABLE_MAX_ENTRIES} distinct pairs there are`);
  const expected = REDUCED_TABLE_HEADER_BYTES + count * REDUCED_TABLE_ENTRY_BYTES;
  if (table.byteLength !== expected) throw bad(`count ${count} needs ${expected} bytes, got ${table.byteLength}`);
  for (let i = 0; i < count; i++) {
    const at = REDUCED_TABLE_HEADER_BYTES + i * REDUCED_TABLE_ENTRY_BYTES;
    const length = view.getUint8(at);
    const index = view.getUint16(at + 1, true);
    const transform = view.getUint8(at + 3);
    const bits = DICTIONARY_WORD_BITS[length] ?? 0;
    if (bits === 0) throw bad(`entry ${i}: word length ${length} is outside 4..24`);
    if (index >= 1 << bits)
      throw bad(`entry ${i}: word index ${index} is outside 0..${(1 << bits) - 1} for length ${length}`);
    if (transform >= DICTIONARY_TRANSFORMS)
      throw bad(`entry ${i}: transform ${transform} is outside 0..${DICTIONARY_TRANSFORMS - 1}`);
  }
  return count;
}

/**
 * The bytes a (word, transform) reference decodes to, from the encoder's own
 * copy of the dictionary and transforms (BrotliGetDictionaryWord): what a
 * trace event's input bytes must equal.
 */
export function dictionaryWord(wordLength: number, wordIndex: number, transformId: number): Uint8Array {
  return withHeap("brotli", (heap) => {
    const out = heap.malloc(64);
    try {
      const n = heap.call("BrotliGetDictionaryWord", () =>
        heap.fn.BrotliGetDictionaryWord!(wordLength, wordIndex, transformId, out),
      );
      if (n < 0)
        throw invalidArgument(
          `no dictionary word (length ${wordLength}, index ${wordIndex}, transform ${transformId})`,
        );
      return heap.copyOut(out, n);
    } finally {
      heap.free(out);
    }
  });
}

export interface TraceOptions {
  /** 5..9. */
  quality: number;
  /** A PSD1 table (prepared for this call and freed after) or a prepared dictionary. */
  table: Uint8Array | ReducedDictionary;
  lgwin?: number;
  mode?: BrotliMode;
}

/**
 * Trace events in their native layout (see {@link DictionaryCandidateEvent}), for callers that want no per-event
 * objects.
 */
export interface TraceRecords {
  /** count x TRACE_RECORD_BYTES bytes. */
  records: Uint8Array;
  count: number;
  /** The compressed output of the traced run (a valid brotli stream). */
  compressed: Uint8Array;
}

/**
 * Compresses `input` with `table` attached in trace mode and returns every
 * reduced-dictionary reference the encoder emitted, in input order. The
 * buffer is sized so nothing is dropped (every reference covers at least 4 bytes).
 */
export function traceDictionaryCandidatesRaw(input: Uint8Array, options: TraceOptions): TraceRecords {
  const { quality } = options;
  if (
    !Number.isInteger(quality) ||
    quality < REDUCED_DICTIONARY_QUALITIES.min ||
    quality > REDUCED_DICTIONARY_QUALITIES.max
  ) {
    throw invalidArgument(
      `tracing needs quality ${REDUCED_DICTIONARY_QUALITIES.min}..${REDUCED_DICTIONARY_QUALITIES.max}, got ${quality}`,
    );
  }
  if (input.byteLength > LIMITS.codec.maxOneShotInputBytes) {
    throw new CodecError(
      "INPUT_TOO_LARGE",
      `${input.byteLength} bytes exceeds codec.maxOneShotInputBytes (${LIMITS.codec.maxOneShotInputBytes})`,
    );
  }
  const owned = !(options.table instanceof ReducedDictionary);
  const dict = options.table instanceof ReducedDictionary ? options.table : ReducedDictionary.prepare(options.table);
  try {
    const trace = new ReducedDictionaryTrace(Math.floor(input.byteLength / 4) + 1);
    const enc = new BrotliEncoder(
      { quality, lgwin: options.lgwin, mode: options.mode, sizeHint: input.byteLength, reducedDictionary: dict },
      trace,
    );
    const parts = enc.push(input);
    parts.push(...enc.finish());
    const compressed = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
    let at = 0;
    for (const p of parts) {
      compressed.set(p, at);
      at += p.byteLength;
    }
    return { records: trace.records, count: trace.count, compressed };
  } finally {
    if (owned) dict.dispose();
  }
}

/** {@link traceDictionaryCandidatesRaw} as objects. */
export function traceDictionaryCandidates(input: Uint8Array, options: TraceOptions): DictionaryCandidateEvent[] {
  const { records, count } = traceDictionaryCandidatesRaw(input, options);
  return decodeTraceRecords(records, count);
}

export function decodeTraceRecords(records: Uint8Array, count: number): DictionaryCandidateEvent[] {
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  const events: DictionaryCandidateEvent[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * TRACE_RECORD_BYTES;
    events.push({
      position: view.getUint32(at, true),
      wordIndex: view.getUint16(at + 4, true),
      wordLength: view.getUint8(at + 6),
      transformId: view.getUint8(at + 7),
      matchLength: view.getUint16(at + 8, true),
      scoreGain: view.getInt32(at + 12, true),
    });
  }
  return events;
}

/**
 * The encoder side of tracing: a record buffer in the encoder's heap, given
 * to the native state when the encoder is configured and read back before it
 * is destroyed. Internal to this module and encoder.ts.
 */
export class ReducedDictionaryTrace {
  records: Uint8Array = new Uint8Array(0);
  count = 0;
  #buffer = 0;

  constructor(readonly capacity: number) {}

  attach(lease: HeapLease, state: number): void {
    const { heap } = lease;
    this.#buffer = lease.malloc(this.capacity * TRACE_RECORD_BYTES);
    const ok = heap.call("BrotliEncoderSetReducedDictionaryTrace", () =>
      heap.fn.BrotliEncoderSetReducedDictionaryTrace!(state, this.#buffer, this.capacity),
    );
    if (!ok)
      throw new CodecError(
        "INVALID_ARGUMENT",
        "brotli encoder refused the trace buffer (no reduced dictionary attached)",
      );
  }

  collect(heap: WasmHeap, state: number): void {
    const total = heap.fn.BrotliEncoderReducedDictionaryTraceCount!(state) >>> 0;
    // Cannot happen with the capacity traceDictionaryCandidatesRaw picks; say so if it ever does.
    if (total > this.capacity)
      throw new CodecError("INVALID_ARGUMENT", `trace overflowed: ${total} events for ${this.capacity} slots`);
    this.count = total;
    this.records = heap.copyOut(this.#buffer, total * TRACE_RECORD_BYTES);
  }
}
