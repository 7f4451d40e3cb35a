/**
 * Everything a streaming coder holds in a wasm heap (the heap itself, its
 * native state, its staging buffers, a dictionary it made) taken and given
 * back as one. A coder whose setup throws half-way, one that fails
 * mid-stream and one that finishes all release the same way: in reverse
 * order, exactly once, so a heap is never left counted as in use and a
 * native object never outlives what it points into.
 *
 * @example
 * const { lease, held: state } = HeapLease.open("brotli", (lease) =>
 *   lease.native("a brotli encoder", "BrotliEncoderCreateInstance", "BrotliEncoderDestroyInstance", 0, 0, 0),
 * );
 * // ...stream through `state`...
 * lease.release();
 */
import { CodecError } from "../errors.ts";
import { heapOf, type WasmHeap } from "./heap.ts";
import type { CodecModuleName } from "./registry.ts";
import { StreamBuffers } from "./stream-io.ts";

export class HeapLease {
  readonly heap: WasmHeap;
  readonly #undo: (() => void)[] = [];
  #released = false;

  private constructor(module: CodecModuleName) {
    this.heap = heapOf(module);
    this.heap.acquire();
  }

  /** Takes `module`'s heap and runs `setup` in it; if setup throws, whatever it took is given back first. */
  static open<T>(module: CodecModuleName, setup: (lease: HeapLease) => T): { lease: HeapLease; held: T } {
    const lease = new HeapLease(module);
    try {
      return { lease, held: setup(lease) };
    } catch (err) {
      lease.release();
      throw err;
    }
  }

  get released(): boolean {
    return this.#released;
  }

  /**
   * Calls the export `create` (a C constructor returning a pointer, NULL when
   * out of memory) and schedules `destroy` for it. A trapped heap is never
   * called again: its state is garbage and the heap is discarded whole.
   */
  native(what: string, create: string, destroy: string, ...args: number[]): number {
    const { heap } = this;
    const ptr = heap.call(create, () => heap.fn[create]!(...args)) >>> 0;
    if (ptr === 0) throw new CodecError("OUT_OF_MEMORY", `could not create ${what}`);
    this.onRelease(() => {
      if (!heap.broken) heap.fn[destroy]!(ptr);
    });
    return ptr;
  }

  malloc(size: number): number {
    const ptr = this.heap.malloc(size);
    this.onRelease(() => this.heap.free(ptr));
    return ptr;
  }

  streamBuffers(inputBytes: number, outputBytes: number): StreamBuffers {
    const buffers = new StreamBuffers(this.heap, inputBytes, outputBytes);
    this.onRelease(() => buffers.free());
    return buffers;
  }

  /** Schedules `undo` for release, before everything scheduled earlier. */
  onRelease(undo: () => void): void {
    this.#undo.push(undo);
  }

  /** Runs one step of a stream; if it throws, the stream is over and everything is given back. */
  releaseOnThrow<T>(step: () => T): T {
    try {
      return step();
    } catch (err) {
      this.release();
      throw err;
    }
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    try {
      for (let i = this.#undo.length - 1; i >= 0; i--) this.#undo[i]!();
    } finally {
      this.heap.release();
    }
  }
}
