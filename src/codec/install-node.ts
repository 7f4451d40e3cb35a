/**
 * Installs the codec modules in Node (the CLI and benchmarks), from the same
 * `.wasm` files the Worker bundles, so both run identical code.
 */
import { readFileSync } from "node:fs";
import { installCodecModule, type CodecModuleName } from "./runtime/registry.ts";

const names: CodecModuleName[] = ["brotli", "lz4"];
for (const name of names) {
  const bytes = readFileSync(new URL(`./wasm/${name}.wasm`, import.meta.url));
  // The Workers runtime types (which this project type-checks against) declare
  // WebAssembly.Module abstract, since Workers forbid compiling at run time; Node allows it.
  const Module = WebAssembly.Module as unknown as new (bytes: BufferSource) => WebAssembly.Module;
  installCodecModule(name, new Module(bytes));
}
