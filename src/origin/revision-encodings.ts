/**
 * A revision's coded bodies, made once where its answer is made (the origin)
 * and kept beside the identity body in every tier ({@link Answer.encoded}),
 * so a hot br read costs what a hot identity read costs. Quality is as high
 * as a bounded one-off cost allows: q11 for small bodies, q9 up to 1 MiB,
 * the dynamic q5 above (LIMITS.wire.revisionBrotli*MaxBytes says why).
 * Bodies too small to gain, too big for a tier to keep, or not text, get none.
 *
 * @example
 * const encoded = revisionEncodings(body, "text/html; charset=utf-8");   // { br } or undefined
 */
import { LIMITS } from "../limits.ts";
import type { Answer } from "./answer.ts";
import { isCompressible } from "../representation/compressible.ts";
import { brotliForWire } from "../representation/wire-encode.ts";

export function revisionBrotliQuality(bytes: number): number {
  if (bytes <= LIMITS.wire.revisionBrotliQ11MaxBytes) return 11;
  if (bytes <= LIMITS.wire.revisionBrotliQ9MaxBytes) return 9;
  return LIMITS.wire.dynamicBrotliQuality;
}

export function revisionEncodings(body: Uint8Array, contentType: string): Answer["encoded"] {
  const size = body.byteLength;
  if (!isCompressible(contentType) || size < LIMITS.wire.minCompressBytes || size > LIMITS.tiers.maxEntryBytes)
    return undefined;
  return { br: brotliForWire(body, revisionBrotliQuality(size), contentType) };
}
