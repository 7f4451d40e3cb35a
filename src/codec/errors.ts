/**
 * One error type for every codec failure, with a stable code callers can
 * switch on and tests can assert. Messages are for humans and may change;
 * codes may not.
 *
 * @example
 * try { brotliDecompress(bytes, { maxOutputBytes: 1 << 20 }); }
 * catch (e) { if (e instanceof CodecError && e.code === "OUTPUT_LIMIT") ... }
 */
export const CodecErrorCode = {
  /** An argument is out of its documented range. */
  INVALID_ARGUMENT: 1,
  /** The compressed bytes are not a valid stream for this codec. */
  CORRUPT_INPUT: 2,
  /** The stream ended before the codec's end-of-stream marker. */
  TRUNCATED_INPUT: 3,
  /** Bytes follow a complete stream. */
  TRAILING_DATA: 4,
  /** Decoding would produce more than the caller's cap: a likely bomb. */
  OUTPUT_LIMIT: 5,
  /** Input bigger than the codec (or the caller) accepts. */
  INPUT_TOO_LARGE: 6,
  /** The WebAssembly heap could not grow enough. */
  OUT_OF_MEMORY: 7,
  /** A `dcb` body does not start with the RFC 9842 magic. */
  BAD_MAGIC: 8,
  /** A `dcb` body names a dictionary other than the one supplied. */
  DICTIONARY_MISMATCH: 9,
  /** The dictionary itself was rejected. */
  BAD_DICTIONARY: 10,
  /** The WebAssembly module trapped; the instance was discarded. */
  WASM_TRAP: 11,
  /** A checksum inside the stream did not match its content. */
  CHECKSUM_MISMATCH: 12,
  /** The codec's WebAssembly module was never installed in this runtime. */
  NOT_INSTALLED: 13,
} as const;

export type CodecErrorCodeName = keyof typeof CodecErrorCode;

export class CodecError extends Error {
  override readonly name = "CodecError";
  /** Stable numeric form of {@link code}, as fflate numbers its errors. */
  readonly errno: number;

  constructor(
    readonly code: CodecErrorCodeName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.errno = CodecErrorCode[code];
  }
}

export function invalidArgument(message: string): CodecError {
  return new CodecError("INVALID_ARGUMENT", message);
}
