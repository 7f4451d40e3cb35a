/**
 * What the codec costs to ship: gzip -9 (zlib level 9) size of each wasm
 * module and of the codec's JavaScript, each measured on its own because
 * Wrangler uploads them as separate modules and the deploy limit sums the
 * per-module gzip sizes (as .ci/run does). The JS is bundled with esbuild,
 * as Wrangler does, with .wasm imports left external so only JS is counted,
 * and unminified, as Wrangler ships it by default.
 *
 * @example
 * const sizes = await codecModuleSizes();
 * sizes.total_gzip; // brotli.wasm + lz4.wasm + codec JS (install-worker)
 */
import { readFileSync } from "node:fs";
import { errorMessage } from "../../lib/errors.ts";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

export interface SizeEntry {
  bytes: number;
  gzip: number;
}

export interface ModuleSizes {
  gzip_level: 9;
  "brotli.wasm": SizeEntry;
  "lz4.wasm": SizeEntry;
  /** src/codec/index.ts + install-worker.ts, bundled; null if esbuild is unavailable. */
  "codec.js": SizeEntry | null;
  /** The same bundle minified, for reference. */
  "codec.min.js": SizeEntry | null;
  /** What a Worker importing the full codec uploads: brotli.wasm + lz4.wasm + codec.js, gzip each. */
  total_gzip: number | null;
  note?: string;
}

const CODEC_DIR = new URL("../../codec/", import.meta.url);

function entry(bytes: Uint8Array): SizeEntry {
  return { bytes: bytes.byteLength, gzip: gzipSync(bytes, { level: 9 }).byteLength };
}

async function bundleCodec(minify: boolean): Promise<Uint8Array> {
  // Imported lazily: esbuild comes with wrangler, and a missing one should cost only this number.
  const { build } = await import("esbuild");
  const result = await build({
    stdin: {
      contents: 'export * from "./index.ts";\nimport "./install-worker.ts";\n',
      resolveDir: fileURLToPath(CODEC_DIR),
      loader: "ts",
      sourcefile: "codec-entry.ts",
    },
    bundle: true,
    write: false,
    format: "esm",
    // Resolve packages the way Wrangler does for Workers.
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    target: "es2022",
    minify,
    external: ["*.wasm"],
    logLevel: "silent",
  });
  return result.outputFiles[0]!.contents;
}

export async function codecModuleSizes(): Promise<ModuleSizes> {
  const wasm = (name: string) => entry(readFileSync(new URL(`wasm/${name}`, CODEC_DIR)));
  const brotli = wasm("brotli.wasm");
  const lz4 = wasm("lz4.wasm");
  let js: SizeEntry | null = null;
  let min: SizeEntry | null = null;
  let note: string | undefined;
  try {
    js = entry(await bundleCodec(false));
    min = entry(await bundleCodec(true));
  } catch (err) {
    note = `codec JS not measured: ${errorMessage(err).split("\n").slice(0, 2).join(" ")}`;
  }
  return {
    gzip_level: 9,
    "brotli.wasm": brotli,
    "lz4.wasm": lz4,
    "codec.js": js,
    "codec.min.js": min,
    total_gzip: js ? brotli.gzip + lz4.gzip + js.gzip : null,
    ...(note ? { note } : {}),
  };
}
