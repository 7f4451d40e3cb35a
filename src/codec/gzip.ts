/**
 * gzip and raw deflate through fflate, with the same error type and output
 * cap as the wasm codecs. Decompression streams through fflate's inflater so
 * a bomb is stopped at the cap instead of after it has filled memory.
 *
 * @example
 * const gz = gzipCompress(bytes, { level: 6 });
 * const same = gzipDecompress(gz, { maxOutputBytes: 1 << 20 });
 */
import { Gunzip, Inflate, gzipSync, deflateSync, type FlateError } from "fflate";
import CRC32 from "crc-32";
import { CodecError, invalidArgument } from "./errors.ts";
import { LIMITS } from "../limits.ts";
import { concatChunks } from "./runtime/stream-io.ts";

type Level = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

export interface GzipOptions {
  /** 0..9, default 6 (as gzip's command line). */
  level?: number;
}

function checkLevel(level: number | undefined): Level {
  const l = level ?? 6;
  if (!Number.isInteger(l) || l < 0 || l > 9) throw invalidArgument(`gzip level must be an integer 0..9, got ${l}`);
  return l as Level;
}

export function gzipCompress(input: Uint8Array, options: GzipOptions = {}): Uint8Array {
  return gzipSync(input, { level: checkLevel(options.level), mtime: 0 });
}

export function deflateCompress(input: Uint8Array, options: GzipOptions = {}): Uint8Array {
  return deflateSync(input, { level: checkLevel(options.level) });
}

function mapFlateError(err: unknown, what: string): CodecError {
  if (err instanceof CodecError) return err;
  const code = (err as FlateError).code;
  // fflate: 0 unexpected EOF, 1 bad block type, 2 bad lengths, 3 bad distance, 6 bad gzip header.
  if (code === 0) return new CodecError("TRUNCATED_INPUT", `${what} stream ended early`, { cause: err });
  return new CodecError("CORRUPT_INPUT", `${what} stream is corrupt (${(err as Error).message})`, { cause: err });
}

function inflateCapped(input: Uint8Array, cap: number, gzip: boolean): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  const what = gzip ? "gzip" : "deflate";
  const ondata = (chunk: Uint8Array) => {
    total += chunk.byteLength;
    if (total > cap) throw new CodecError("OUTPUT_LIMIT", `${what} output exceeds the ${cap}-byte cap`);
    parts.push(chunk);
  };
  const inflater = gzip ? new Gunzip(ondata) : new Inflate(ondata);
  try {
    // Feed in slices so the cap is checked while inflating, not after.
    const slice = 64 * 1024;
    for (let i = 0; i < input.byteLength; i += slice) inflater.push(input.subarray(i, i + slice), false);
    inflater.push(new Uint8Array(0), true);
  } catch (err) {
    throw mapFlateError(err, what);
  }
  return concatChunks(parts, total);
}

export function gzipDecompress(input: Uint8Array, options: { maxOutputBytes?: number } = {}): Uint8Array {
  if (input.byteLength < 18) throw new CodecError("TRUNCATED_INPUT", `gzip stream of ${input.byteLength} bytes is shorter than its header and trailer`);
  if (input[0] !== 0x1f || input[1] !== 0x8b) throw new CodecError("CORRUPT_INPUT", "not a gzip stream (bad magic)");
  const out = inflateCapped(input, options.maxOutputBytes ?? LIMITS.codec.maxOutputBytes, true);
  const view = new DataView(input.buffer, input.byteOffset + input.byteLength - 8, 8);
  if (view.getUint32(4, true) !== (out.byteLength >>> 0)) {
    throw new CodecError("CHECKSUM_MISMATCH", "gzip trailer length does not match the decoded data");
  }
  if (view.getUint32(0, true) !== CRC32.buf(out) >>> 0) throw new CodecError("CHECKSUM_MISMATCH", "gzip CRC-32 does not match the decoded data");
  return out;
}

export function deflateDecompress(input: Uint8Array, options: { maxOutputBytes?: number } = {}): Uint8Array {
  return inflateCapped(input, options.maxOutputBytes ?? LIMITS.codec.maxOutputBytes, false);
}
