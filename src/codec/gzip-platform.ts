/**
 * gzip through the platform's own `CompressionStream` and
 * `DecompressionStream`: native zlib in workerd (and in Node), several times
 * faster than fflate's JavaScript. The Worker uses these; fflate
 * (src/codec/gzip.ts) stays for what the platform lacks: a compression
 * level, raw deflate, synchronous calls in the CLI.
 *
 * Decompression reads the platform's output chunk by chunk against the
 * output cap and cancels the stream at the first byte past it, so a gzip
 * bomb costs at most one chunk beyond the cap.
 *
 * @example
 * const gz = await platformGzip(body);
 * const same = await platformGunzip(gz, { maxOutputBytes: 1 << 20 });
 */
import { CodecError } from "./errors.ts";
import { OutputBudget, resolveOutputCap, type OutputCapOptions } from "./output-cap.ts";
import { concatChunks } from "./runtime/stream-io.ts";

/** gzip at zlib's default level (6), the only one the platform offers. */
export async function platformGzip(body: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([body]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export async function platformGunzip(body: Uint8Array, options: OutputCapOptions = {}): Promise<Uint8Array> {
  const budget = new OutputBudget(resolveOutputCap(options.maxOutputBytes), "gzip");
  const reader = new Blob([body]).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      budget.spend(value.byteLength);
      chunks.push(value);
    }
  } catch (err) {
    await reader.cancel().catch(() => {});
    if (err instanceof CodecError) throw err;
    throw platformError(err);
  }
  return concatChunks(chunks);
}

/** The platform says only "bad data" or "unexpected end"; name which, and keep its words. */
function platformError(err: unknown): CodecError {
  const message = String((err as Error)?.message ?? err);
  if (/unexpected end|incomplete|truncat|premature/i.test(message)) return new CodecError("TRUNCATED_INPUT", `gzip stream ends early: ${message}`);
  if (/trailing|junk after/i.test(message)) return new CodecError("TRAILING_DATA", `gzip stream has bytes after its end: ${message}`);
  return new CodecError("CORRUPT_INPUT", `gzip stream is corrupt: ${message}`);
}
