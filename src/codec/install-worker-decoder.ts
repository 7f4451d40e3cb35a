/**
 * Installs only the brotli decoder and LZ4, for Workers that never encode
 * brotli: the decoder module is about a quarter of the full one.
 */
import brotliDecoder from "./wasm/brotli-decoder.wasm";
import lz4 from "./wasm/lz4.wasm";
import { installCodecModule } from "./runtime/registry.ts";

installCodecModule("brotli-decoder", brotliDecoder);
installCodecModule("lz4", lz4);
