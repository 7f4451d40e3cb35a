/** How the CLI talks: data on stdout, one-line reasons on stderr, meaningful exit codes. */
import { CodecError } from "../../codec/errors.ts";
import { errorMessage } from "../../lib/errors.ts";

/** Wrong flags or arguments: exit code 2, like commander's own usage errors. */
export class UsageError extends Error {}

export function fail(err: unknown, exitCode = 1): never {
  const reason =
    err instanceof CodecError ? `${err.code.toLowerCase().replace(/_/g, " ")}: ${err.message}` : errorMessage(err);
  process.stderr.write(`palimpsest: ${reason.split("\n")[0]}\n`);
  process.exit(exitCode);
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** Writes and waits for the pipe to drain, so large outputs are not truncated at exit. */
export function writeOut(bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    if (bytes.byteLength === 0) return resolve();
    process.stdout.write(bytes, (err) => (err ? reject(err) : resolve()));
  });
}

export function parseIntOption(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value) || n < min || n > max)
      throw new UsageError(`--${name} must be an integer ${min}..${max}, got "${value}"`);
    return n;
  };
}

/** Progress and context for a human, on stderr, so stdout stays data. */
export function logLine(message: string): void {
  process.stderr.write(`${message}\n`);
}
