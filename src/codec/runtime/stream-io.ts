/**
 * The four-slot in/out cursor block that brotli's and LZ4's streaming calls
 * update in place (`size_t* available_in, const uint8_t** next_in, ...`),
 * plus the fixed staging buffers the streams copy through. Keeping the
 * buffers fixed is what bounds a stream's heap, whatever its length.
 */
import type { WasmHeap } from "./heap.ts";

export const AVAIL_IN = 0;
export const NEXT_IN = 4;
export const AVAIL_OUT = 8;
export const NEXT_OUT = 12;

export class StreamBuffers {
  readonly io: number;
  readonly input: number;
  readonly output: number;

  constructor(
    private readonly heap: WasmHeap,
    readonly inputBytes: number,
    readonly outputBytes: number,
  ) {
    this.io = heap.malloc(16);
    this.input = heap.malloc(inputBytes);
    this.output = heap.malloc(outputBytes);
  }

  /** Copies up to inputBytes of `bytes` into the input buffer and points the cursor at it. */
  loadInput(bytes: Uint8Array, offset: number): number {
    const n = Math.min(this.inputBytes, bytes.byteLength - offset);
    this.heap.u8.set(bytes.subarray(offset, offset + n), this.input);
    this.heap.setU32(this.io + AVAIL_IN, n);
    this.heap.setU32(this.io + NEXT_IN, this.input);
    return n;
  }

  get availIn(): number {
    return this.heap.u32(this.io + AVAIL_IN);
  }

  clearInput(): void {
    this.heap.setU32(this.io + AVAIL_IN, 0);
    this.heap.setU32(this.io + NEXT_IN, this.input);
  }

  resetOutput(): void {
    this.heap.setU32(this.io + AVAIL_OUT, this.outputBytes);
    this.heap.setU32(this.io + NEXT_OUT, this.output);
  }

  /** Bytes written since the last resetOutput, copied out of the heap. */
  takeOutput(): Uint8Array | undefined {
    const n = this.outputBytes - this.heap.u32(this.io + AVAIL_OUT);
    return n > 0 ? this.heap.copyOut(this.output, n) : undefined;
  }

  producedBytes(): number {
    return this.outputBytes - this.heap.u32(this.io + AVAIL_OUT);
  }

  free(): void {
    this.heap.free(this.output);
    this.heap.free(this.input);
    this.heap.free(this.io);
  }
}

export function concatChunks(chunks: readonly Uint8Array[], total?: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const size = total ?? chunks.reduce((n, c) => n + c.byteLength, 0);
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
