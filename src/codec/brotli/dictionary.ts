/**
 * A raw prefix dictionary for brotli (the "shared dictionary" of RFC 9842 and
 * of our revision deltas). Preparing one hashes it, which costs about as much
 * as compressing it, so a prepared dictionary is built once per wasm instance
 * and reused across encodes until disposed.
 *
 * @example
 * const dict = new BrotliDictionary(previousRevision);
 * const delta = brotliCompress(nextRevision, { quality: 9, dictionary: dict });
 * brotliDecompress(delta, { dictionary: dict });
 * dict.dispose();
 */
import { CodecError } from "../errors.ts";
import { LIMITS } from "../../limits.ts";
import type { WasmHeap } from "../runtime/heap.ts";
import type { CodecModuleName } from "../runtime/registry.ts";

const BROTLI_SHARED_DICTIONARY_RAW = 0;

interface HeapCopy {
  /** Weak: a dictionary kept for reuse must not keep a retired heap (tens of MiB) alive. */
  heap: WeakRef<WasmHeap>;
  data: number;
  prepared: number;
}

export class BrotliDictionary {
  readonly bytes: Uint8Array;
  // One copy per module, not per heap: a retired heap must stay collectable.
  readonly #copies = new Map<CodecModuleName, HeapCopy>();

  /** `sha256`, if the caller already has the digest, is taken as it. */
  constructor(bytes: Uint8Array, sha256?: Uint8Array) {
    checkDictionaryBytes(bytes);
    this.bytes = bytes;
    if (sha256) this.#sha256 = Promise.resolve(sha256);
  }

  #sha256?: Promise<Uint8Array>;

  /** SHA-256 of the dictionary, as RFC 9842 names dictionaries. Computed once. */
  sha256(): Promise<Uint8Array> {
    this.#sha256 ??= crypto.subtle.digest("SHA-256", this.bytes).then((d) => new Uint8Array(d));
    return this.#sha256;
  }

  get byteLength(): number {
    return this.bytes.byteLength;
  }

  /** The dictionary's bytes inside `heap`; brotli keeps a pointer, so they must outlive every stream using them. */
  dataIn(heap: WasmHeap): number {
    return this.#copyIn(heap).data;
  }

  /** A BrotliEncoderPreparedDictionary* valid in `heap`. */
  preparedIn(heap: WasmHeap): number {
    const copy = this.#copyIn(heap);
    if (copy.prepared === 0) {
      const data = copy.data;
      const size = this.bytes.byteLength;
      copy.prepared =
        heap.call("BrotliEncoderPrepareDictionary", () =>
          heap.fn.BrotliEncoderPrepareDictionary!(BROTLI_SHARED_DICTIONARY_RAW, size, data, 11, 0, 0, 0),
        ) >>> 0;
      if (copy.prepared === 0) throw new CodecError("OUT_OF_MEMORY", "could not prepare the brotli dictionary");
    }
    return copy.prepared;
  }

  /** Frees the heap copies. Streams still using this dictionary must be finished first. */
  dispose(): void {
    for (const copy of this.#copies.values()) {
      const heap = copy.heap.deref();
      if (!heap) continue;
      if (copy.prepared !== 0 && !heap.broken) heap.fn.BrotliEncoderDestroyPreparedDictionary!(copy.prepared);
      heap.free(copy.data);
    }
    this.#copies.clear();
  }

  #copyIn(heap: WasmHeap): HeapCopy {
    let copy = this.#copies.get(heap.moduleName);
    if (copy?.heap.deref() !== heap) {
      copy = { heap: new WeakRef(heap), data: heap.copyIn(this.bytes), prepared: 0 };
      this.#copies.set(heap.moduleName, copy);
    }
    return copy;
  }
}

export type DictionaryInput = BrotliDictionary | Uint8Array;

/** Throws BAD_DICTIONARY for bytes no BrotliDictionary accepts (empty, or over codec.brotliMaxDictionaryBytes). */
export function checkDictionaryBytes(bytes: Uint8Array): void {
  if (bytes.byteLength === 0) throw new CodecError("BAD_DICTIONARY", "a brotli dictionary cannot be empty");
  if (bytes.byteLength > LIMITS.codec.brotliMaxDictionaryBytes) {
    throw new CodecError(
      "BAD_DICTIONARY",
      `dictionary of ${bytes.byteLength} bytes exceeds codec.brotliMaxDictionaryBytes (${LIMITS.codec.brotliMaxDictionaryBytes})`,
    );
  }
}

/** Validates a dictionary option without taking any heap, for streams that build their coder later. */
export function checkDictionaryInput(input: DictionaryInput | undefined): void {
  if (input !== undefined && !(input instanceof BrotliDictionary)) checkDictionaryBytes(input);
}
