/**
 * RFC 9842 dictionary-compressed brotli (`Content-Encoding: dcb`): a 36-byte
 * header, the magic FF 44 43 42 then the SHA-256 of the dictionary, followed
 * by a brotli stream that uses the dictionary as a raw prefix.
 *
 * @example
 * const body = await dcbCompress(page, dict);          // serve with Content-Encoding: dcb
 * const page2 = await dcbDecompress(body, dict);       // checks magic and dictionary hash
 */
import { CodecError } from "./errors.ts";
import type { DictionaryInput } from "./brotli/dictionary.ts";
import { withDictionary } from "./brotli/dictionary-cache.ts";
import { sameBytes } from "./runtime/same-bytes.ts";
import { brotliCompress } from "./brotli/encoder.ts";
import { brotliDecompress, type BrotliDecompressOptions } from "./brotli/decoder.ts";
import type { BrotliCompressOptions } from "./brotli/options.ts";

export const DCB_MAGIC = Uint8Array.of(0xff, 0x44, 0x43, 0x42);
export const DCB_HEADER_BYTES = DCB_MAGIC.byteLength + 32;

/** Prepends the dcb header to a brotli stream already encoded against the dictionary. */
export function dcbFrame(dictionarySha256: Uint8Array, brotliStream: Uint8Array): Uint8Array {
  if (dictionarySha256.byteLength !== 32)
    throw new CodecError("INVALID_ARGUMENT", "a dcb dictionary hash is 32 bytes of SHA-256");
  const out = new Uint8Array(DCB_HEADER_BYTES + brotliStream.byteLength);
  out.set(DCB_MAGIC, 0);
  out.set(dictionarySha256, DCB_MAGIC.byteLength);
  out.set(brotliStream, DCB_HEADER_BYTES);
  return out;
}

/** Splits a dcb body into the dictionary hash it names and the brotli stream. */
export function dcbUnframe(body: Uint8Array): { dictionarySha256: Uint8Array; payload: Uint8Array } {
  if (body.byteLength < DCB_HEADER_BYTES) {
    throw new CodecError(
      "TRUNCATED_INPUT",
      `dcb body of ${body.byteLength} bytes is shorter than its ${DCB_HEADER_BYTES}-byte header`,
    );
  }
  for (let i = 0; i < DCB_MAGIC.byteLength; i++) {
    if (body[i] !== DCB_MAGIC[i])
      throw new CodecError("BAD_MAGIC", "not a dcb body: it does not start with FF 44 43 42");
  }
  return {
    dictionarySha256: body.subarray(DCB_MAGIC.byteLength, DCB_HEADER_BYTES),
    payload: body.subarray(DCB_HEADER_BYTES),
  };
}

export async function dcbCompress(
  input: Uint8Array,
  dictionary: DictionaryInput,
  options: Omit<BrotliCompressOptions, "dictionary" | "largeWindow"> = {},
): Promise<Uint8Array> {
  return withDictionary(dictionary, async (dict) =>
    dcbFrame(await dict.sha256(), brotliCompress(input, { ...options, dictionary: dict })),
  );
}

export async function dcbDecompress(
  body: Uint8Array,
  dictionary: DictionaryInput,
  options: Omit<BrotliDecompressOptions, "dictionary" | "largeWindow"> = {},
): Promise<Uint8Array> {
  const { dictionarySha256, payload } = dcbUnframe(body);
  return withDictionary(dictionary, async (dict) => {
    if (!sameBytes(await dict.sha256(), dictionarySha256)) {
      throw new CodecError(
        "DICTIONARY_MISMATCH",
        "the dcb body was encoded against a different dictionary (SHA-256 differs)",
      );
    }
    return brotliDecompress(payload, { ...options, dictionary: dict });
  });
}
