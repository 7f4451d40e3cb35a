/**
 * Runs `palimpsest bench ...` from the repository root, as a developer
 * would, and parses its `--json` output: one object per line.
 *
 * @example
 * const rows = await benchRows(["tiers", "--json", "--quick"], { timeout: 88_000 });
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const REPO = fileURLToPath(new URL("../../../../../", import.meta.url));
export const CLI = fileURLToPath(new URL("../../../../../src/tools/cli/palimpsest.js", import.meta.url));

export interface BenchRunOptions {
  /** Kills the bench after this many ms. */
  timeout?: number;
  /** Sent on timeout (default SIGTERM). */
  killSignal?: NodeJS.Signals;
}

export async function benchRows<Row = Record<string, unknown>>(
  args: readonly string[],
  options: BenchRunOptions = {},
): Promise<Row[]> {
  const { stdout } = await run(process.execPath, [CLI, "bench", ...args], {
    cwd: REPO,
    maxBuffer: 1 << 20,
    ...options,
  });
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Row);
}
