/**
 * Which Worker `bench store --worker-from` measures: another checkout's, so a
 * before/after comparison differs only in the Worker (the harness, its
 * importer, reads and MediaWiki beside it are this checkout's). The argument
 * is either a folder holding a checkout (with its node_modules, or a symlink
 * to this one's), or a git revision of this repository, which is written out
 * with `git archive` into a temporary folder whose node_modules is a symlink
 * to this checkout's (so the old Worker is bundled with today's packages;
 * `npm ci` of the old package-lock is not run).
 *
 * @example
 * const source = await workerSource("6f4ba5f");
 * try {
 *   const bundle = await bundleWorker({ root: source.root });
 * } finally {
 *   source.dispose();
 * }
 */
import { execFile } from "node:child_process";
import { errorMessage } from "../../../lib/errors.ts";
import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../../local/local-worker.ts";

const run = promisify(execFile);

export interface WorkerSource {
  /** The checkout's folder (its wrangler.toml, sources, node_modules). */
  root: string;
  /** Its commit, or null for a folder git does not know. */
  commit: string | null;
  dispose(): void;
}

async function commitOf(dir: string, rev = "HEAD"): Promise<string | null> {
  try {
    return (await run("git", ["-C", dir, "rev-parse", "--verify", `${rev}^{commit}`])).stdout.trim();
  } catch {
    return null;
  }
}

export async function workerSource(from: string): Promise<WorkerSource> {
  const dir = resolve(from);
  if (existsSync(dir) && statSync(dir).isDirectory()) {
    if (!existsSync(join(dir, "wrangler.toml"))) throw new Error(`--worker-from ${from}: no wrangler.toml in ${dir}`);
    return { root: dir, commit: await commitOf(dir), dispose: () => undefined };
  }
  const commit = await commitOf(REPO_ROOT, from);
  if (commit === null) throw new Error(`--worker-from ${from}: neither a folder nor a git revision of ${REPO_ROOT}`);
  const root = mkdtempSync(join(tmpdir(), "palimpsest-worker-from-"));
  const dispose = () => rmSync(root, { recursive: true, force: true });
  try {
    await run("sh", ["-c", 'git -C "$1" archive --format=tar "$2" | tar -x -C "$3"', "sh", REPO_ROOT, commit, root], {
      maxBuffer: 16 << 20,
    });
    symlinkSync(join(REPO_ROOT, "node_modules"), join(root, "node_modules"));
  } catch (err) {
    dispose();
    throw new Error(`--worker-from ${from}: cannot write out ${commit}: ${errorMessage(err)}`);
  }
  return { root, commit, dispose };
}
