/**
 * gzip through the platform's own zlib: workerd's built-in `node:zlib`
 * (native zlib, the `nodejs_compat` flag in wrangler.toml) and Node's, the
 * same API. The Worker uses these; fflate (src/codec/gzip.ts) stays for the
 * CLI's `codec` command and raw deflate.
 *
 * Why not `CompressionStream`/`DecompressionStream`, which came first:
 * compressing through them costs about what one `gzipSync` does, but a
 * gunzip that must stop at an output cap reads their output chunk by chunk,
 * a promise per chunk, and measured 0.20-0.37 x Node's zlib in workerd
 * (`bench codecs --worker-gzip`); `gunzipSync` takes the cap itself
 * (`maxOutputLength`) and stops a bomb at it, in one native call.
 *
 * @example
 * const gz = await platformGzip(body);
 * const same = await platformGunzip(gz, { maxOutputBytes: 1 << 20 });
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { errorMessage } from "../lib/errors.ts";
import { LIMITS } from "../limits.ts";
import { CodecError } from "./errors.ts";
import { resolveOutputCap, type OutputCapOptions } from "./output-cap.ts";

/** zlib's default level, what `CompressionStream` gave. */
const LEVEL = 6;

/** Async for its callers' sake: they once waited on a stream, and may again. */
// eslint-disable-next-line @typescript-eslint/require-await -- async on purpose (above): a failure is a rejection
export async function platformGzip(body: Uint8Array): Promise<Uint8Array> {
  return asBytes(gzipSync(body, { level: LEVEL }));
}

// eslint-disable-next-line @typescript-eslint/require-await -- as platformGzip: a refusal is a rejection, not a throw
export async function platformGunzip(body: Uint8Array, options: OutputCapOptions = {}): Promise<Uint8Array> {
  const cap = Math.min(resolveOutputCap(options.maxOutputBytes), LIMITS.codec.platformGunzipMaxBytes);
  try {
    // zlib refuses a cap of 0; an empty stream still decodes under a cap of 1.
    const out = asBytes(gunzipSync(body, { maxOutputLength: Math.max(cap, 1) }));
    if (out.byteLength > cap) throw outputLimit(cap);
    return out;
  } catch (err) {
    if (err instanceof CodecError) throw err;
    if (err instanceof RangeError) throw outputLimit(cap);
    throw platformError(err, body);
  }
}

/** A plain Uint8Array over the same bytes (Node hands back a Buffer). */
function asBytes(b: Uint8Array): Uint8Array {
  return b.constructor === Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

function outputLimit(cap: number): CodecError {
  return new CodecError("OUTPUT_LIMIT", `gzip output exceeds the ${cap}-byte cap`);
}

/** zlib says only "bad data" or "unexpected end"; name which, and keep its words. */
function platformError(err: unknown, body: Uint8Array): CodecError {
  const message = errorMessage(err);
  if (/unexpected end|incomplete|truncat|premature/i.test(message))
    return new CodecError("TRUNCATED_INPUT", `gzip stream ends early: ${message}`);
  // After a whole member, zlib reads what follows as the next member's header.
  const gzip = body[0] === 0x1f && body[1] === 0x8b;
  if (gzip && /incorrect header check|unknown compression method/i.test(message))
    return new CodecError("TRAILING_DATA", `gzip stream has bytes after its end: ${message}`);
  return new CodecError("CORRUPT_INPUT", `gzip stream is corrupt: ${message}`);
}
