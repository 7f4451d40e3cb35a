/**
 * Encodes a body for the wire. brotli is our wasm build of the reference
 * encoder (the platform has no brotli CompressionStream); gzip is the
 * platform's native `CompressionStream("gzip")`, several times faster in
 * workerd than fflate in JavaScript (fflate stays for Node tools and raw
 * deflate options: src/codec/gzip.ts).
 *
 * @example
 * const br = brotliForWire(body, LIMITS.wire.dynamicBrotliQuality, "text");
 * const gz = await gzipForWire(body);
 */
import { BROTLI_DEFAULTS, brotliCompress, type BrotliMode } from "../codec/index.ts";

/**
 * The window is no larger than the body needs (and never above the wire's
 * lgwin 22, which every browser accepts): a small window is a small heap.
 */
export function brotliForWire(body: Uint8Array, quality: number, mode: BrotliMode = "generic"): Uint8Array {
  const lgwin = Math.min(BROTLI_DEFAULTS.lgwin, Math.max(10, Math.ceil(Math.log2(body.byteLength + 1))));
  return brotliCompress(body, { quality, lgwin, mode });
}

export async function gzipForWire(body: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([body]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The brotli mode for a media type: the text model helps UTF-8 prose and markup. */
export function brotliModeFor(contentType: string | null | undefined): BrotliMode {
  return contentType && /^\s*(text\/|application\/(?:json|problem\+json|link-format|javascript|xml))/i.test(contentType) ? "text" : "generic";
}
