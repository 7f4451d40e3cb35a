/**
 * Encodes a body for the wire. brotli is our wasm build of the reference
 * encoder (the platform has no brotli); gzip is the platform's native zlib
 * (workerd's built-in `node:zlib`, src/codec/gzip-platform.ts), several
 * times faster than fflate in JavaScript (fflate stays for Node tools and
 * raw deflate options: src/codec/gzip.ts).
 *
 * HTML, CSS and JavaScript bodies are compressed with their content type's
 * reduced static dictionary (src/codec/dict/static-dict.ts): at the mid
 * qualities (5-9) the encoder also looks for the dictionary words that type
 * uses where LZ77 found nothing good; the stream is standard brotli. Other
 * types get stock brotli.
 *
 * @example
 * const br = brotliForWire(body, LIMITS.wire.dynamicBrotliQuality, "text/html; charset=utf-8");
 * const gz = await gzipForWire(body);
 */
import { BROTLI_DEFAULTS, brotliCompress, type BrotliMode } from "../codec/index.ts";
import { reducedDictionaryFor } from "../codec/dict/static-dict.ts";
import { platformGzip } from "../codec/gzip-platform.ts";

/**
 * The window for a body: no larger than the body needs (and never above the
 * wire's lgwin 22, which every browser accepts): a small window is a small heap.
 */
export function wireLgwin(bytes: number): number {
  return Math.min(BROTLI_DEFAULTS.lgwin, Math.max(10, Math.ceil(Math.log2(bytes + 1))));
}

export function brotliForWire(body: Uint8Array, quality: number, contentType: string | null | undefined): Uint8Array {
  return brotliCompress(body, {
    quality,
    lgwin: wireLgwin(body.byteLength),
    mode: brotliModeFor(contentType),
    reducedDictionary: reducedDictionaryFor(contentType),
  });
}

export function gzipForWire(body: Uint8Array): Promise<Uint8Array> {
  return platformGzip(body);
}

/** The brotli mode for a media type: the text model helps UTF-8 prose and markup. */
export function brotliModeFor(contentType: string | null | undefined): BrotliMode {
  return contentType && /^\s*(text\/|application\/(?:json|problem\+json|link-format|javascript|xml))/i.test(contentType)
    ? "text"
    : "generic";
}
