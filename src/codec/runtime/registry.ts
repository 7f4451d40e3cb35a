/**
 * Where the compiled WebAssembly modules come from. Workers import `.wasm`
 * files as precompiled modules; Node reads and compiles them. Each runtime
 * installs its modules once at start-up (see `../install-worker.ts` and
 * `../install-node.ts`) and the codec code never cares which it is.
 */
import { CodecError } from "../errors.ts";

export type CodecModuleName = "brotli" | "lz4";

const modules = new Map<CodecModuleName, WebAssembly.Module>();

export function installCodecModule(name: CodecModuleName, module: WebAssembly.Module): void {
  modules.set(name, module);
}

export function codecModule(name: CodecModuleName): WebAssembly.Module {
  const module = modules.get(name);
  if (!module) {
    throw new CodecError("NOT_INSTALLED", `codec module ${name}.wasm is not installed in this runtime`);
  }
  return module;
}
