// Wrangler's default CompiledWasm rule turns `import mod from "./x.wasm"` into
// a compiled module, in `wrangler deploy`, `wrangler dev` and vitest-pool-workers.
declare module "*.wasm" {
  const mod: WebAssembly.Module;
  export default mod;
}
