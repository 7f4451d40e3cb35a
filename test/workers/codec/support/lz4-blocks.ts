/**
 * Raw access to the LZ4 module's block decoders for the fast-decoder tests:
 * one block through one of our variants or through upstream's
 * LZ4_decompress_safe, in buffers laid out to catch stray accesses, and
 * inputs shaped to reach every copy path (short offsets, long literal runs,
 * long matches).
 *
 * @example
 * const got = decodeRaw(heapOf("lz4"), block, size, 2, "dst-at-end");
 * expect(got.n).toBe(size);
 */
import { expect } from "vitest";
import type { WasmHeap } from "../../../../src/codec/runtime/heap.ts";
import { LIMITS } from "../../../../src/limits.ts";
import type { Prng } from "./prng.ts";

export const SLACK = LIMITS.codec.lz4DecodeSlackBytes;
const CANARY = 64;
const CANARY_BYTE = 0xa5;

/**
 * Where the buffers go. "canaries": both malloc'd, each followed by canary
 * bytes after its slack. "src-at-end" / "dst-at-end": that buffer's slack
 * ends exactly at the end of wasm memory, so any access past it traps (and
 * heap.call turns the trap into a WASM_TRAP error that fails the test). The
 * end of memory is malloc's (its top chunk and footer), so those bytes are
 * saved first and put back after: the decoders never call malloc.
 */
export type Layout = "canaries" | "src-at-end" | "dst-at-end";

export interface RawResult {
  /** Decoded size, or negative on error. */
  n: number;
  /** The decoded bytes when n >= 0. */
  out: Uint8Array;
}

/** Decodes `block` with at most `cap` bytes of output; `variant` is a PAL_LZ4_* number or "reference". */
export function decodeRaw(
  heap: WasmHeap,
  block: Uint8Array,
  cap: number,
  variant: number | "reference",
  layout: Layout = "canaries",
): RawResult {
  const srcBytes = block.byteLength + SLACK + CANARY;
  const dstBytes = cap + SLACK + CANARY;
  const srcAlloc = layout === "src-at-end" ? 0 : heap.malloc(srcBytes);
  const dstAlloc = layout === "dst-at-end" ? 0 : heap.malloc(dstBytes);
  const end = heap.u8.byteLength;
  const borrowed = layout === "canaries" ? 0 : (layout === "src-at-end" ? block.byteLength : cap) + SLACK;
  const saved = heap.u8.slice(end - borrowed, end);
  try {
    if (borrowed > end / 2) throw new Error(`decodeRaw: ${borrowed} bytes do not fit at the end of a ${end}-byte heap`);
    const mine = srcAlloc || dstAlloc;
    if (borrowed > 0 && mine + Math.max(srcBytes, dstBytes) > end - borrowed)
      throw new Error("decodeRaw: the malloc'd buffer reaches the end of the heap");
    const src = layout === "src-at-end" ? end - SLACK - block.byteLength : srcAlloc;
    const dst = layout === "dst-at-end" ? end - SLACK - cap : dstAlloc;
    const u8 = heap.u8;
    u8.fill(CANARY_BYTE, src, src + srcBytes - (layout === "src-at-end" ? CANARY : 0));
    u8.set(block, src);
    u8.fill(CANARY_BYTE, dst, dst + dstBytes - (layout === "dst-at-end" ? CANARY : 0));
    const n =
      variant === "reference"
        ? heap.call("LZ4_decompress_safe", () => heap.fn.LZ4_decompress_safe!(src, dst, block.byteLength, cap))
        : heap.call("pal_lz4_decode_block", () =>
            heap.fn.pal_lz4_decode_block!(src, block.byteLength, dst, 0, cap, variant),
          );
    if (layout !== "dst-at-end") {
      const canaries = heap.u8.subarray(dst + cap + SLACK, dst + dstBytes);
      expect(
        canaries.every((b) => b === CANARY_BYTE),
        `variant ${variant} wrote past dst + cap + slack`,
      ).toBe(true);
    }
    if (layout !== "src-at-end") {
      const canaries = heap.u8.subarray(src + block.byteLength, src + srcBytes);
      expect(
        canaries.every((b) => b === CANARY_BYTE),
        `variant ${variant} wrote into the input`,
      ).toBe(true);
    }
    return { n, out: n >= 0 ? heap.u8.slice(dst, dst + n) : new Uint8Array(0) };
  } finally {
    if (!heap.broken) heap.u8.set(saved, end - borrowed);
    heap.free(dstAlloc);
    heap.free(srcAlloc);
  }
}

/** Period-p text (p = 1..20) with rare edits: matches at offsets below 16 and around it. */
export function shortPeriods(rand: Prng, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let i = 0;
  while (i < length) {
    const period = rand.int(1, 20);
    const pattern = rand.bytes(period);
    const run = rand.int(4, 600);
    for (let k = 0; k < run && i < length; k++) out[i++] = pattern[k % period]!;
    if (i < length) out[i++] = rand.int(0, 255);
  }
  return out;
}

/** Random runs of 271..2000 bytes (extended literal lengths) between copies of 4..300 earlier bytes. */
export function literalsAndMatches(rand: Prng, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let i = 0;
  while (i < length) {
    if (i < 1000 || rand.next() < 0.3) {
      const n = Math.min(length - i, rand.int(271, 2000));
      out.set(rand.bytes(n), i);
      i += n;
    } else {
      const n = Math.min(length - i, rand.int(4, 300));
      const from = rand.int(Math.max(0, i - 65535), i - 1);
      for (let k = 0; k < n; k++) out[i + k] = out[from + k]!;
      i += n;
    }
  }
  return out;
}
