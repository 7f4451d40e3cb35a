/**
 * LZ4 frames with any combination of descriptor flags, for the fast frame
 * decoder's tests: lz4FrameCompress always writes linked blocks with a
 * content size and checksum, so other layouts are rebuilt from its blocks
 * (linked) or from lz4Compress blocks (independent), with checksums from
 * this file's own XXH32.
 *
 * @example
 * const frame = buildFrame(input, { independent: true, blockChecksum: true, contentSize: false, contentChecksum: false });
 */
import { lz4Compress, lz4FrameCompress } from "../../../../src/codec/index.ts";
import { concat } from "./inputs.ts";

/** XXH32 (xxHash spec, 32-bit), straight from the algorithm description. */
export function xxh32(data: Uint8Array, seed = 0): number {
  const P1 = 2654435761,
    P2 = 2246822519,
    P3 = 3266489917,
    P4 = 668265263,
    P5 = 374761393;
  const rotl = (x: number, r: number) => ((x << r) | (x >>> (32 - r))) >>> 0;
  const read = (i: number) => (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24)) >>> 0;
  const round = (acc: number, lane: number) => Math.imul(rotl((acc + Math.imul(lane, P2)) >>> 0, 13), P1) >>> 0;
  const n = data.byteLength;
  let i = 0;
  let h: number;
  if (n >= 16) {
    let v1 = (seed + P1 + P2) >>> 0,
      v2 = (seed + P2) >>> 0,
      v3 = seed >>> 0,
      v4 = (seed - P1) >>> 0;
    for (; i + 16 <= n; i += 16) {
      v1 = round(v1, read(i));
      v2 = round(v2, read(i + 4));
      v3 = round(v3, read(i + 8));
      v4 = round(v4, read(i + 12));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) >>> 0;
  } else {
    h = (seed + P5) >>> 0;
  }
  h = (h + n) >>> 0;
  for (; i + 4 <= n; i += 4) h = Math.imul(rotl((h + Math.imul(read(i), P3)) >>> 0, 17), P4) >>> 0;
  for (; i < n; i++) h = Math.imul(rotl((h + Math.imul(data[i]!, P5)) >>> 0, 11), P1) >>> 0;
  h = Math.imul(h ^ (h >>> 15), P2) >>> 0;
  h = Math.imul(h ^ (h >>> 13), P3) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export interface FrameLayout {
  /** Independent blocks (each from lz4Compress) or linked ones (from lz4FrameCompress). */
  independent: boolean;
  blockChecksum: boolean;
  contentSize: boolean;
  contentChecksum: boolean;
  /** 64 KiB default. */
  blockSize?: 65536 | 262144 | 1048576 | 4194304;
  /** Store these block numbers uncompressed (independent frames only). */
  raw?: (i: number) => boolean;
}

/** Linked blocks and every descriptor flag off, but for what `on` sets. */
export const frameLayout = (on: Partial<FrameLayout> = {}): FrameLayout => ({
  independent: false,
  blockChecksum: false,
  contentSize: false,
  contentChecksum: false,
  ...on,
});

const BLOCK_IDS = { 65536: 4, 262144: 5, 1048576: 6, 4194304: 7 } as const;

/** One data block: its 4-byte header word and stored bytes. */
interface Block {
  word: number;
  data: Uint8Array;
}

function u32(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n >>> 0, true);
  return out;
}

/** The data blocks of a frame lz4FrameCompress wrote (no block checksums; a content size unless empty). */
function linkedBlocks(input: Uint8Array, blockSize: FrameLayout["blockSize"]): Block[] {
  const frame = lz4FrameCompress(input, { blockSize });
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const blocks: Block[] = [];
  for (let at = frame[4]! & 0x08 ? 15 : 7; ;) {
    const word = view.getUint32(at, true);
    if (word === 0) return blocks;
    const size = word & 0x7fffffff;
    blocks.push({ word, data: frame.subarray(at + 4, at + 4 + size) });
    at += 4 + size;
  }
}

function independentBlocks(input: Uint8Array, blockSize: number, raw: (i: number) => boolean): Block[] {
  const blocks: Block[] = [];
  for (let at = 0, i = 0; at < input.byteLength; at += blockSize, i++) {
    const chunk = input.subarray(at, at + blockSize);
    const packed = lz4Compress(chunk).subarray(4);
    blocks.push(
      raw(i) || packed.byteLength >= chunk.byteLength
        ? { word: (chunk.byteLength | 0x80000000) >>> 0, data: chunk }
        : { word: packed.byteLength, data: packed },
    );
  }
  return blocks;
}

export function buildFrame(input: Uint8Array, layout: FrameLayout): Uint8Array {
  const blockSize = layout.blockSize ?? 65536;
  const blocks = layout.independent
    ? independentBlocks(input, blockSize, layout.raw ?? (() => false))
    : linkedBlocks(input, blockSize);
  const flg =
    0x40 |
    (layout.independent ? 0x20 : 0) |
    (layout.blockChecksum ? 0x10 : 0) |
    (layout.contentSize ? 0x08 : 0) |
    (layout.contentChecksum ? 0x04 : 0);
  const descriptor = [flg, BLOCK_IDS[blockSize] << 4];
  if (layout.contentSize) {
    const size = new Uint8Array(8);
    new DataView(size.buffer).setBigUint64(0, BigInt(input.byteLength), true);
    descriptor.push(...size);
  }
  const parts: Uint8Array[] = [
    u32(0x184d2204),
    Uint8Array.from(descriptor),
    Uint8Array.of((xxh32(Uint8Array.from(descriptor)) >>> 8) & 0xff),
  ];
  for (const b of blocks) {
    parts.push(u32(b.word), b.data);
    if (layout.blockChecksum) parts.push(u32(xxh32(b.data)));
  }
  parts.push(u32(0));
  if (layout.contentChecksum) parts.push(u32(xxh32(input)));
  return concat(parts);
}
