/**
 * How either brotli stream coder comes to life: its native state in a leased
 * heap, configured and given its dictionary, with fixed staging buffers. A
 * failure at any step leaves nothing held; a finished or failed coder gives
 * it all back with `lease.release()`.
 */
import { LIMITS } from "../../limits.ts";
import type { WasmHeap } from "../runtime/heap.ts";
import { HeapLease } from "../runtime/heap-lease.ts";
import type { CodecModuleName } from "../runtime/registry.ts";
import type { StreamBuffers } from "../runtime/stream-io.ts";
import type { BrotliDictionary, DictionaryInput } from "./dictionary.ts";
import { borrowDictionary, borrowUnpreparedDictionary } from "./dictionary-cache.ts";

export interface BrotliStreamState {
  lease: HeapLease;
  heap: WasmHeap;
  /** The BrotliEncoderState* or BrotliDecoderState*. */
  state: number;
  buffers: StreamBuffers;
}

export interface BrotliCoderKind {
  module: CodecModuleName;
  /** For the out-of-memory message: "a brotli decoder". */
  what: string;
  /** The exports that create and destroy the state. */
  create: string;
  destroy: string;
  /**
   * Whether it attaches prepared dictionaries (an encoder) or only their bytes (a decoder): see
   * borrowUnpreparedDictionary.
   */
  prepared: boolean;
  /**
   * Sets parameters and attaches `dict`, if any; throws a CodecError to refuse. Whatever it takes from `lease` is given
   * back with it.
   */
  configure(heap: WasmHeap, state: number, dict: BrotliDictionary | undefined, lease: HeapLease): void;
}

export function openBrotliStream(kind: BrotliCoderKind, dictionary: DictionaryInput | undefined): BrotliStreamState {
  const { lease, held } = HeapLease.open(kind.module, (lease) => {
    const { dict, release } = kind.prepared ? borrowDictionary(dictionary) : borrowUnpreparedDictionary(dictionary);
    // Registered first, so it is let go after the state that points into it.
    lease.onRelease(release);
    // The three zeros: no custom allocator, the module's own malloc and free.
    const state = lease.native(kind.what, kind.create, kind.destroy, 0, 0, 0);
    kind.configure(lease.heap, state, dict, lease);
    return { state, buffers: lease.streamBuffers(LIMITS.codec.streamChunkBytes, LIMITS.codec.streamChunkBytes) };
  });
  return { lease, heap: lease.heap, ...held };
}
