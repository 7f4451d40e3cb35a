/**
 * A scratch folder for the calling test file (or describe block): its path
 * is known at once, the folder is made before the first test and removed,
 * with all it holds, after the last. Collecting the file (`vitest list`)
 * writes nothing.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

export function scratchDirForThisFile(prefix: string): string {
  const dir = join(tmpdir(), `${prefix}${randomBytes(8).toString("hex")}`);
  // Not recursive: a folder already there (a name taken) fails rather than be shared.
  beforeAll(() => mkdirSync(dir, { mode: 0o700 }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
