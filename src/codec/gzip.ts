/**
 * gzip and raw deflate through fflate, with the same error type and output
 * cap as the wasm codecs. Decompression streams through fflate's inflater so
 * a bomb is stopped at the cap instead of after it has filled memory.
 *
 * gzip input may hold several members back to back (RFC 1952 2.2); like
 * `gzip -d`, we decode them all, in order, and check each member's CRC-32 and
 * length. Bytes after the last member that are not another member are an
 * error (TRAILING_DATA), not ignored.
 *
 * @example
 * const gz = gzipCompress(bytes, { level: 6 });
 * const same = gzipDecompress(gz, { maxOutputBytes: 1 << 20 });
 */
import { Gunzip, Inflate, gzipSync, deflateSync, type FlateError } from "fflate";
import { errorMessage } from "../lib/errors.ts";
import CRC32 from "crc-32";
import { CodecError, invalidArgument } from "./errors.ts";
import { OutputBudget, resolveOutputCap, type OutputCapOptions } from "./output-cap.ts";
import { concatChunks } from "./runtime/stream-io.ts";

type Level = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

export interface GzipOptions {
  /** 0..9, default 6 (as gzip's command line). */
  level?: number;
}

/** Input is fed to fflate in slices so the cap is checked while inflating, not after. */
const SLICE_BYTES = 64 * 1024;

/** The shortest whole member: header (10), an empty fixed-Huffman block (2), trailer (8). */
const GZIP_MIN_BYTES = 20;

/** An empty gzip member, as gzipSync writes it; see {@link gunzipFrom}. */
const EMPTY_MEMBER = Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0);

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
  return new CodecError("CORRUPT_INPUT", `${what} stream is corrupt (${errorMessage(err)})`, { cause: err });
}

/** Collects decoded chunks, refusing to go past the cap. */
class CappedSink extends OutputBudget {
  readonly parts: Uint8Array[] = [];

  push(chunk: Uint8Array): void {
    this.spend(chunk.byteLength);
    this.parts.push(chunk);
  }

  result(): Uint8Array {
    return concatChunks(this.parts, this.spent);
  }
}

export function deflateDecompress(input: Uint8Array, options: OutputCapOptions = {}): Uint8Array {
  const sink = new CappedSink(resolveOutputCap(options.maxOutputBytes), "deflate");
  // fflate's inflater ends without complaint on no input at all.
  if (input.byteLength === 0) throw new CodecError("TRUNCATED_INPUT", "deflate stream is empty");
  const inflater = new Inflate((chunk) => sink.push(chunk));
  try {
    // The last slice must be pushed as final: fflate only reports a cut stream
    // when it runs out of input on a final push (a final push of nothing passes).
    for (let i = 0; i < input.byteLength; i += SLICE_BYTES)
      inflater.push(input.subarray(i, i + SLICE_BYTES), i + SLICE_BYTES >= input.byteLength);
  } catch (err) {
    throw mapFlateError(err, "deflate");
  }
  return sink.result();
}

interface GunzipRun {
  sink: CappedSink;
  /** Input offset of the member being decoded when the run stopped. */
  memberStart: number;
  /** 1-based number of that member within the run. */
  member: number;
  /** Its output so far: length and CRC-32. */
  memberBytes: number;
  memberCrc: number;
  /** The appended empty member was found exactly at the end of the input. */
  endedAtInputEnd: boolean;
  /** Whatever stopped the run; undefined if fflate finished. */
  error?: unknown;
  /** The error came while the empty member was being pushed. */
  errorInSentinel: boolean;
}

/**
 * Runs fflate's Gunzip over input[from..], checking each member's trailer
 * (CRC-32 and length of what it decoded to) at the point where fflate finds
 * the next member, which `onmember` reports. fflate itself skips the trailer
 * without reading it, and does not say where the last member ended.
 *
 * With `sentinel`, an empty member is pushed after the input. If fflate
 * reports it at exactly the end of the input, the last real member ended
 * there too, so its trailer is the input's last 8 bytes. Anything else (a cut
 * member, bytes after the last member) keeps fflate from finding the sentinel
 * at that offset.
 */
function gunzipFrom(input: Uint8Array, from: number, cap: number, sentinel: boolean): GunzipRun {
  const run: GunzipRun = {
    sink: new CappedSink(cap, "gzip"),
    memberStart: from,
    member: 1,
    memberBytes: 0,
    memberCrc: 0,
    endedAtInputEnd: false,
    errorInSentinel: false,
  };
  const gunzip = new Gunzip((chunk) => {
    if (chunk.byteLength === 0) return;
    run.sink.push(chunk);
    run.memberBytes += chunk.byteLength;
    run.memberCrc = CRC32.buf(chunk, run.memberCrc);
  });
  gunzip.onmember = (offset) => {
    const next = from + offset;
    // The sentinel's magic is only at its start, so fflate cannot find a member past the input's end.
    if (next > input.byteLength)
      throw new CodecError("CORRUPT_INPUT", "gzip member boundary past the end of the input");
    checkTrailer(input, next, run);
    if (next === input.byteLength) run.endedAtInputEnd = true;
    run.memberStart = next;
    run.member++;
    run.memberBytes = 0;
    run.memberCrc = 0;
  };
  try {
    for (let i = from; i < input.byteLength; i += SLICE_BYTES) {
      gunzip.push(input.subarray(i, i + SLICE_BYTES), !sentinel && i + SLICE_BYTES >= input.byteLength);
    }
    if (sentinel) {
      run.errorInSentinel = true;
      gunzip.push(EMPTY_MEMBER, true);
      run.errorInSentinel = false;
    }
  } catch (err) {
    run.error = err;
  }
  return run;
}

/** The member that ended just before `end` carries its CRC-32 and length (mod 2^32) in the 8 bytes before it. */
function trailerMatches(input: Uint8Array, end: number, run: GunzipRun): boolean {
  const trailer = new DataView(input.buffer, input.byteOffset + end - 8, 8);
  return trailer.getUint32(0, true) === run.memberCrc >>> 0 && trailer.getUint32(4, true) === run.memberBytes % 2 ** 32;
}

/** Where the trailer of the run's last member ends, found by its contents; -1 if nowhere. */
function findTrailerEnd(input: Uint8Array, run: GunzipRun): number {
  const want = new Uint8Array(8);
  const view = new DataView(want.buffer);
  view.setUint32(0, run.memberCrc >>> 0, true);
  view.setUint32(4, run.memberBytes % 2 ** 32, true);
  // After the member's header (10 bytes at least) and deflate data (2 at least).
  search: for (let at = run.memberStart + 12; at + 8 <= input.byteLength; at++) {
    for (let k = 0; k < 8; k++) if (input[at + k] !== want[k]) continue search;
    return at + 8;
  }
  return -1;
}

function checkTrailer(input: Uint8Array, end: number, run: GunzipRun): void {
  if (!trailerMatches(input, end, run)) {
    throw new CodecError(
      "CHECKSUM_MISMATCH",
      `gzip member ${run.member}: its trailer's CRC-32 or length does not match the decoded data`,
    );
  }
}

export function gzipDecompress(input: Uint8Array, options: OutputCapOptions = {}): Uint8Array {
  const cap = resolveOutputCap(options.maxOutputBytes);
  if (input.byteLength < GZIP_MIN_BYTES)
    throw new CodecError(
      "TRUNCATED_INPUT",
      `gzip stream of ${input.byteLength} bytes is shorter than its header and trailer`,
    );
  if (input[0] !== 0x1f || input[1] !== 0x8b || input[2] !== 8)
    throw new CodecError("CORRUPT_INPUT", "not a gzip stream (bad magic or compression method)");

  const run = gunzipFrom(input, 0, cap, true);
  if (run.error === undefined && run.endedAtInputEnd) return run.sink.result();
  // A trailer check, or the cap hit by the input's own bytes, is the answer.
  if (run.error instanceof CodecError && (run.error.code === "CHECKSUM_MISMATCH" || !run.errorInSentinel))
    throw run.error;

  // The last member did not end exactly at the end of the input. Decode it
  // again, alone and without the sentinel, to tell a cut member from bytes
  // after a whole one. Only failing input pays for this.
  const last = gunzipFrom(input, run.memberStart, cap - (run.sink.spent - run.memberBytes), false);
  const n = run.member + last.member - 1;
  // fflate reports running out of input, a bad block, or (code 6) no gzip
  // header after a member's deflate data; only the last needs a closer look.
  if (last.error !== undefined && (last.error as FlateError).code !== 6) throw mapFlateError(last.error, "gzip");
  // fflate found where member n's deflate data ends but does not say where
  // that is, nor read the trailer after it: look for the trailer it should have.
  const trailerEnd = findTrailerEnd(input, last);
  if (trailerEnd !== -1 && trailerEnd < input.byteLength) {
    throw new CodecError("TRAILING_DATA", `${input.byteLength - trailerEnd} bytes follow gzip member ${n}`);
  }
  // With 4 or more bytes after it, the member's trailer is there but wrong;
  // with fewer, fflate stops quietly, as it does when the trailer is cut.
  if (last.error !== undefined)
    throw new CodecError(
      "CHECKSUM_MISMATCH",
      `gzip member ${n}: its trailer's CRC-32 or length does not match the decoded data`,
    );
  throw new CodecError("TRUNCATED_INPUT", `gzip stream ended inside member ${n}`);
}
