/**
 * A WebAssembly instance of one codec module, with the few memory helpers
 * every wrapper needs, and the policy that keeps isolates small: memory
 * never shrinks, so a heap that grew large is retired once nothing uses it.
 */
import { CodecError } from "../errors.ts";
import { errorMessage } from "../../lib/errors.ts";
import { LIMITS } from "../../limits.ts";
import { codecModule, type CodecModuleName } from "./registry.ts";

type WasmFn = (...args: number[]) => number;

const imports: WebAssembly.Imports = {
  // No module imports anything today: the brotli encoder is built to return
  // OOM instead of calling exit() (BROTLI_ENCODER_CLEANUP_ON_OOM). Should a
  // build link exit() again, reaching it is a bug, reported as a trap.
  wasi_snapshot_preview1: {
    proc_exit: () => {
      throw new WebAssembly.RuntimeError("proc_exit called");
    },
  },
};

export class WasmHeap {
  readonly fn: Record<string, WasmFn>;
  readonly #memory: WebAssembly.Memory;
  #u8: Uint8Array;
  #users = 0;
  #broken = false;
  /** High-water mark of this instance's linear memory, for tests and the bench. */
  peakBytes: number;

  constructor(readonly moduleName: CodecModuleName) {
    const instance = new WebAssembly.Instance(codecModule(moduleName), imports);
    this.fn = instance.exports as unknown as Record<string, WasmFn>;
    this.#memory = instance.exports.memory as WebAssembly.Memory;
    this.#u8 = new Uint8Array(this.#memory.buffer);
    this.peakBytes = this.#memory.buffer.byteLength;
  }

  get bytes(): number {
    return this.#memory.buffer.byteLength;
  }

  get broken(): boolean {
    return this.#broken;
  }

  get users(): number {
    return this.#users;
  }

  /** Current view of memory; any call into wasm may grow and detach the old one. */
  get u8(): Uint8Array {
    if (this.#u8.buffer !== this.#memory.buffer) {
      this.#u8 = new Uint8Array(this.#memory.buffer);
      this.peakBytes = Math.max(this.peakBytes, this.#memory.buffer.byteLength);
    }
    return this.#u8;
  }

  u32(ptr: number): number {
    return new DataView(this.#memory.buffer).getUint32(ptr, true);
  }

  setU32(ptr: number, value: number): void {
    new DataView(this.#memory.buffer).setUint32(ptr, value, true);
  }

  /** Runs wasm code; a trap poisons the instance so nobody reuses broken state. */
  call<T>(what: string, body: () => T): T {
    try {
      return body();
    } catch (err) {
      if (err instanceof WebAssembly.RuntimeError || err instanceof RangeError) {
        this.#broken = true;
        throw new CodecError("WASM_TRAP", `${this.moduleName}: ${what} trapped (${errorMessage(err)})`, {
          cause: err,
        });
      }
      throw err;
    } finally {
      // Touch the view so peakBytes sees growth that happened inside the call.
      void this.u8;
    }
  }

  malloc(size: number): number {
    const ptr = this.call("malloc", () => this.fn.malloc!(Math.max(1, size)));
    if (ptr === 0) {
      throw new CodecError("OUT_OF_MEMORY", `${this.moduleName}: could not allocate ${size} bytes in the wasm heap`);
    }
    return ptr >>> 0;
  }

  free(ptr: number): void {
    if (ptr !== 0 && !this.#broken) this.fn.free!(ptr);
  }

  /** Copies bytes into a fresh allocation and returns its address. */
  copyIn(bytes: Uint8Array): number {
    const ptr = this.malloc(bytes.byteLength);
    this.u8.set(bytes, ptr);
    return ptr;
  }

  copyOut(ptr: number, length: number): Uint8Array {
    return this.u8.slice(ptr, ptr + length);
  }

  /** A NUL-terminated string the C code owns, such as an error name. */
  cString(ptr: number): string {
    const bytes = this.u8;
    const start = ptr >>> 0;
    let end = start;
    while (end < bytes.length && bytes[end] !== 0) end++;
    return new TextDecoder().decode(bytes.subarray(start, end));
  }

  acquire(): void {
    this.#users++;
  }

  release(): void {
    this.#users--;
    retireIfIdle(this);
  }
}

const current = new Map<CodecModuleName, WasmHeap>();

/** The shared instance of a module, replaced if it trapped or grew too big while idle. */
export function heapOf(name: CodecModuleName): WasmHeap {
  let heap = current.get(name);
  if (!heap || heap.broken || (heap.users === 0 && heap.bytes > LIMITS.codec.recycleHeapBytes)) {
    heap = new WasmHeap(name);
    current.set(name, heap);
  }
  return heap;
}

/**
 * Drops every idle instance, so the next operation starts on a fresh heap at
 * the module's initial size. For after a big job (memory never shrinks, and a
 * heap under codec.recycleHeapBytes is otherwise kept), and for measuring one
 * operation's peak. Instances in use are left alone.
 */
export function dropIdleHeaps(): void {
  for (const [name, heap] of current) if (heap.users === 0) current.delete(name);
}

function retireIfIdle(heap: WasmHeap): void {
  if (
    heap.users === 0 &&
    (heap.broken || heap.bytes > LIMITS.codec.recycleHeapBytes) &&
    current.get(heap.moduleName) === heap
  ) {
    current.delete(heap.moduleName);
  }
}

/**
 * Runs `body` with a heap held for its duration. Use it for one-shot calls;
 * streams hold their heap across chunks with acquire/release instead.
 */
export function withHeap<T>(name: CodecModuleName, body: (heap: WasmHeap) => T): T {
  const heap = heapOf(name);
  heap.acquire();
  try {
    return body(heap);
  } finally {
    heap.release();
  }
}
