/**
 * Prepared raw dictionaries kept for reuse. Preparing one hashes all of it,
 * which costs about as much as compressing it, so a call that prepares its
 * dictionary every time costs two to three plain calls; one that finds it
 * here costs what a plain call does plus the dictionary's matches.
 *
 * Entries are found by the bytes' own object (an encoder or decoder given
 * the same Uint8Array again) or by a content key the caller already has
 * (dcb names its dictionary by SHA-256). The cache is bounded by the wasm
 * heap its entries take (LIMITS.codec.preparedDictionaryCacheBytes); an
 * entry pushed out while a stream still uses it is freed when the last
 * stream lets go, never under it.
 *
 * @example
 * const { dict, release } = borrowCachedDictionary(previousRevision);
 * try { brotliCompress(next, { dictionary: dict }); } finally { release(); }
 */
import { Lru } from "../../lib/lru.ts";
import { toHex } from "../../lib/digests.ts";
import { LIMITS } from "../../limits.ts";
import { sameBytes } from "../runtime/same-bytes.ts";
import { BrotliDictionary, checkDictionaryBytes, type DictionaryInput } from "./dictionary.ts";

interface Entry {
  dict: BrotliDictionary;
  users: number;
  evicted: boolean;
}

/**
 * Heap a prepared dictionary takes, its copy included, as an upper bound:
 * measured on brotli 1.2.1 as build.sh patches it (tables sized to
 * dictionaries under 64 KiB), 4 KiB: 30 KiB, 16 KiB: 94 KiB, 64 KiB: 330 KiB,
 * 256 KiB: 1.1 MiB, 1 MiB: 4.5 MiB.
 */
export function preparedDictionaryHeapBytes(dictionaryBytes: number): number {
  return 32 * 1024 + 6 * dictionaryBytes;
}

const cache = new Lru<Uint8Array | string, Entry>(
  LIMITS.codec.preparedDictionaryCacheBytes,
  (e) => preparedDictionaryHeapBytes(e.dict.byteLength),
  (_key, e) => retire(e),
);

/** Out of the cache: freed now, or by the last borrower's release. */
function retire(e: Entry): void {
  e.evicted = true;
  if (e.users === 0) e.dict.dispose();
}

export interface BorrowedDictionary {
  dict: BrotliDictionary;
  /** Lets go of it: the cache keeps it, or frees it if it no longer does (a function: callers destructure it). */
  release: () => void;
}

/**
 * The prepared dictionary for `bytes`, found by `key` (default: the bytes'
 * object, whose content is then compared in full). One too big to keep is
 * made for this borrower alone.
 * `sha256`, when the caller has it, spares the dictionary computing it.
 */
export function borrowCachedDictionary(
  bytes: Uint8Array,
  key: Uint8Array | string = bytes,
  sha256?: Uint8Array,
): BorrowedDictionary {
  let entry = cache.get(key);
  // Found by the caller's array: compare in full, as the caller may have refilled it with another
  // dictionary, and a delta against the wrong one decodes to wrong bytes with nothing to tell.
  if (entry && key === bytes && !sameBytes(entry.dict.bytes, bytes)) {
    retire(entry);
    cache.delete(key);
    entry = undefined;
  }
  if (!entry) {
    // A kept entry holds its own copy: what the caller does with its array afterwards cannot reach it.
    const keep = preparedDictionaryHeapBytes(bytes.byteLength) <= LIMITS.codec.preparedDictionaryCacheBytes;
    entry = { dict: new BrotliDictionary(keep ? bytes.slice() : bytes, sha256), users: 0, evicted: !keep };
    if (keep) cache.set(key, entry);
  }
  const held = entry;
  held.users++;
  let released = false;
  return {
    dict: held.dict,
    release() {
      if (released) return;
      released = true;
      if (--held.users === 0 && held.evicted) held.dict.dispose();
    },
  };
}

/** Entries held and the heap they are counted at, for tests and the bench. */
export function preparedDictionaryCacheStats(): { entries: number; heapBytes: number } {
  return { entries: cache.size, heapBytes: cache.cost };
}

/**
 * Runs `body` with either form as a dictionary. Plain bytes are found in
 * (or added to) the prepared-dictionary cache by their SHA-256, which dcb
 * needs anyway, so the same dictionary arriving again in other bytes
 * (another request, another read from storage) is not prepared again.
 */
export async function withDictionary<T>(
  input: DictionaryInput,
  body: (dict: BrotliDictionary) => Promise<T>,
): Promise<T> {
  if (input instanceof BrotliDictionary) return body(input);
  checkDictionaryBytes(input);
  const sha256 = new Uint8Array(await crypto.subtle.digest("SHA-256", input));
  const { dict, release } = borrowCachedDictionary(input, `sha256:${toHex(sha256)}`, sha256);
  try {
    return await body(dict);
  } finally {
    release();
  }
}

/**
 * For decoders, which need a dictionary's bytes in the heap and never a
 * prepared one: plain bytes get a dictionary of their own, freed with the
 * stream. Copying them into the heap costs less than finding them in the
 * cache (a full compare of the bytes), and a decoder's dictionaries (a
 * storage read's anchors, made afresh per read) would only push out the
 * prepared ones encoders reuse.
 */
export function borrowUnpreparedDictionary(input: DictionaryInput | undefined): {
  dict?: BrotliDictionary;
  release: () => void;
} {
  if (input === undefined) return { release() {} };
  if (input instanceof BrotliDictionary) return { dict: input, release() {} };
  const dict = new BrotliDictionary(input);
  return { dict, release: () => dict.dispose() };
}

/** Accepts either form; plain bytes are looked up in the prepared-dictionary cache by their object. */
export function borrowDictionary(input: DictionaryInput): BorrowedDictionary;
export function borrowDictionary(input: DictionaryInput | undefined): { dict?: BrotliDictionary; release: () => void };
export function borrowDictionary(input: DictionaryInput | undefined): { dict?: BrotliDictionary; release: () => void } {
  if (input === undefined) return { release() {} };
  if (input instanceof BrotliDictionary) return { dict: input, release() {} };
  return borrowCachedDictionary(input);
}
