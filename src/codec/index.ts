/**
 * The codec core: brotli (with raw prefix dictionaries and large windows),
 * LZ4 (block, HC and frame), gzip/deflate and RFC 9842 `dcb` framing.
 * brotli and LZ4 are the reference C libraries compiled to WebAssembly
 * (see `native/build.sh`); install the modules once per runtime with
 * `./install-worker.ts` (Workers) or `./install-node.ts` (Node).
 *
 * Memory: a Worker's codec heap must stay within 64 MiB. Peak wasm memory for
 * one 25 MiB revision, each on a fresh heap (test/workers/codec/memory-unit):
 * - brotli q5 / lgwin 22 (the wire): 47 MiB; q7 / lgwin 22 (storage deltas): 46 MiB.
 * - brotli q8 / lgwin 22 (storage keyframes): 53-59 MiB. q9 / lgwin 22 reaches
 *   72 MiB (over the bound from about 6 MiB of input), so storage does not use it.
 * - lgwin 24 exceeds 64 MiB at every quality measured from 4 up (q4-q7 about
 *   100 MiB, q9 150 MiB), and lgwin 23 at q5-q7 (80-90 MiB): keep storage and
 *   the wire at lgwin 22 or less.
 * - a prepared reduced static dictionary (brotli/reduced-dictionary.ts) adds
 *   about 52 bytes per table entry: 16k entries under 1 MiB, 135k entries
 *   7 MiB (11 MiB peak while preparing); its search needs no per-call memory.
 * - brotli decoding: 6 MiB. LZ4 one-shot block and frame compression: 51 MiB
 *   (input and output both live in the heap); block decoding 32-36 MiB;
 *   whole-frame decoding (lz4FrameDecompress, one-shot up to
 *   codec.lz4OneShotFrameBytes of output) 36 MiB; streaming frame decoding
 *   (Lz4FrameDecoder, 4 MiB blocks) 13 MiB.
 *
 * @example
 * import "./codec/install-worker.ts";
 * import { brotliCompress, brotliDecompress } from "./codec/index.ts";
 * const br = brotliCompress(new TextEncoder().encode("hello"), { quality: 5 });
 */
export { CodecError, CodecErrorCode, type CodecErrorCodeName } from "./errors.ts";
export { BrotliDictionary, type DictionaryInput } from "./brotli/dictionary.ts";
export {
  borrowCachedDictionary,
  preparedDictionaryCacheStats,
  preparedDictionaryHeapBytes,
  type BorrowedDictionary,
} from "./brotli/dictionary-cache.ts";
export { BROTLI_DEFAULTS, type BrotliCompressOptions, type BrotliMode } from "./brotli/options.ts";
export { BrotliEncoder, brotliCompress, brotliCompressStream } from "./brotli/encoder.ts";
export {
  ReducedDictionary,
  cachedReducedDictionary,
  checkReducedTable,
  decodeTraceRecords,
  dictionaryWord,
  traceDictionaryCandidates,
  traceDictionaryCandidatesRaw,
  DICTIONARY_TRANSFORMS,
  DICTIONARY_WORD_BITS,
  REDUCED_DICTIONARY_QUALITIES,
  REDUCED_TABLE_MAX_ENTRIES,
  TRACE_RECORD_BYTES,
  type DictionaryCandidateEvent,
  type TraceOptions,
  type TraceRecords,
} from "./brotli/reduced-dictionary.ts";
export {
  BrotliDecoder,
  brotliDecompress,
  brotliDecompressInto,
  brotliDecompressKnownSize,
  brotliDecompressStream,
  type BrotliDecompressOptions,
} from "./brotli/decoder.ts";
export {
  lz4Compress,
  lz4Decompress,
  lz4DecompressInto,
  lz4DecompressWith,
  lz4StoredSize,
  type Lz4CompressOptions,
  type Lz4DecompressOptions,
} from "./lz4/block.ts";
export {
  LZ4_DEFAULT_VARIANT,
  LZ4_VARIANTS,
  lz4VariantChoice,
  type Lz4Variant,
  type Lz4VariantChoice,
} from "./lz4/fast-block.ts";
export {
  lz4FrameCompress,
  lz4FrameDecompress,
  lz4FrameDecompressInto,
  Lz4FrameDecoder,
  type Lz4FrameOptions,
} from "./lz4/frame.ts";
export { gzipCompress, gzipDecompress, deflateCompress, deflateDecompress, type GzipOptions } from "./gzip.ts";
export { platformGzip, platformGunzip } from "./gzip-platform.ts";
export { DCB_MAGIC, DCB_HEADER_BYTES, dcbFrame, dcbUnframe, dcbCompress, dcbDecompress } from "./dcb.ts";
export { CODEC_BUILD } from "./wasm/build-info.ts";
export { heapOf, dropIdleHeaps } from "./runtime/heap.ts";
