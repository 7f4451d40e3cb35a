/**
 * What the benches that take MediaWiki exports (`bench store`, `bench wire`)
 * share at the command line: the argument's description, the check that
 * every named file exists, and an export that is not one page history
 * reported as the user's error (exit 2) rather than a crash.
 *
 * @example
 * checkHistoryFiles(files);
 * await overHistories(() => benchWire(files, options));
 */
import { existsSync } from "node:fs";
import { HistoryInputError } from "../store/history.ts";
import { UsageError } from "../../local/output.ts";

export const HISTORY_FILES_ARGUMENT = "MediaWiki exports, one page history each (plain, .gz, .br or .bz2)";

export function checkHistoryFiles(files: readonly string[]): void {
  for (const file of files) if (!existsSync(file)) throw new UsageError(`cannot read ${file}`);
}

export async function overHistories<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof HistoryInputError) throw new UsageError(err.message);
    throw err;
  }
}
