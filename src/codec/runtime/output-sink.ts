/**
 * Where a decoder's output goes: a fresh array (the plain decode functions)
 * or the caller's buffer (the `...Into` ones). `fromHeap` takes the decoded
 * bytes, u8[ptr, ptr + n), before the heap is reused; `fromBytes` takes
 * output a fallback path decoded outside the heap (LZ4F, brotli's staging
 * buffers).
 *
 * @example
 * const n = decode(input, intoBuffer(out)); // or decode(input, NEW_BUFFER) for a Uint8Array
 */
export interface OutputSink<T> {
  fromHeap(u8: Uint8Array, ptr: number, n: number): T;
  fromBytes(bytes: Uint8Array): T;
}

export const NEW_BUFFER: OutputSink<Uint8Array> = {
  fromHeap: (u8, ptr, n) => u8.slice(ptr, ptr + n),
  fromBytes: (bytes) => bytes,
};

/** Copies into `output`, which the caller has checked has room, and returns the byte count. */
export function intoBuffer(output: Uint8Array): OutputSink<number> {
  return {
    fromHeap(u8, ptr, n) {
      output.set(u8.subarray(ptr, ptr + n));
      return n;
    },
    fromBytes(bytes) {
      output.set(bytes);
      return bytes.byteLength;
    },
  };
}
