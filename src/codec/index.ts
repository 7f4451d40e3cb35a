/**
 * The codec core: brotli (with raw prefix dictionaries and large windows),
 * LZ4 (block, HC and frame), gzip/deflate and RFC 9842 `dcb` framing.
 * brotli and LZ4 are the reference C libraries compiled to WebAssembly
 * (see `native/build.sh`); install the modules once per runtime with
 * `./install-worker.ts` (Workers) or `./install-node.ts` (Node).
 *
 * @example
 * import "./codec/install-worker.ts";
 * import { brotliCompress, brotliDecompress } from "./codec/index.ts";
 * const br = brotliCompress(new TextEncoder().encode("hello"), { quality: 5 });
 */
export { CodecError, CodecErrorCode, type CodecErrorCodeName } from "./errors.ts";
export { BrotliDictionary, type DictionaryInput } from "./brotli/dictionary.ts";
export { BROTLI_DEFAULTS, type BrotliCompressOptions, type BrotliMode } from "./brotli/options.ts";
export { BrotliEncoder, brotliCompress, brotliCompressStream } from "./brotli/encoder.ts";
export { BrotliDecoder, brotliDecompress, brotliDecompressStream, type BrotliDecompressOptions } from "./brotli/decoder.ts";
export { lz4Compress, lz4Decompress, lz4StoredSize, type Lz4CompressOptions, type Lz4DecompressOptions } from "./lz4/block.ts";
export { lz4FrameCompress, lz4FrameDecompress, Lz4FrameDecoder, type Lz4FrameOptions } from "./lz4/frame.ts";
export { gzipCompress, gzipDecompress, deflateCompress, deflateDecompress, type GzipOptions } from "./gzip.ts";
export { DCB_MAGIC, DCB_HEADER_BYTES, dcbFrame, dcbUnframe, dcbCompress, dcbDecompress } from "./dcb.ts";
export { CODEC_BUILD } from "./wasm/build-info.ts";
export { heapOf } from "./runtime/heap.ts";
