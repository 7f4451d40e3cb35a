/**
 * Installs the codec modules in a Worker. Wrangler bundles `.wasm` imports
 * as precompiled WebAssembly.Module objects, so nothing compiles at run time.
 * Import this once from the Worker's entry point.
 */
import brotli from "./wasm/brotli.wasm";
import lz4 from "./wasm/lz4.wasm";
import { installCodecModule } from "./runtime/registry.ts";

installCodecModule("brotli", brotli);
installCodecModule("lz4", lz4);
