/**
 * Installs the codec modules in Node (the CLI and benchmarks), from the same
 * `.wasm` files the Worker bundles, so both run identical code.
 */
import { readFileSync } from "node:fs";
import { installCodecModule, type CodecModuleName } from "./runtime/registry.ts";

const names: CodecModuleName[] = ["brotli", "lz4"];
for (const name of names) {
  const bytes = readFileSync(new URL(`./wasm/${name}.wasm`, import.meta.url));
  installCodecModule(name, new WebAssembly.Module(bytes));
}
