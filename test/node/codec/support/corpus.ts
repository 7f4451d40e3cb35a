/**
 * Real inputs for the Node codec tests, from the shared corpus next to the
 * repository (../shared/corpus), and a promise-based way to run the
 * reference tools and our own CLI with stdin. Tests that need the corpus or
 * the tools go through test/node/support/requirements.ts: they fail under
 * CI=true when it is not there, and skip saying why otherwise.
 *
 * @example
 * const { status, stdout } = await run("brotli", ["-d", "-c"], packed);
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync } from "node:zlib";

export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
export const CORPUS_DIR = resolve(REPO_ROOT, "../shared/corpus");
export const HAVE_CORPUS =
  existsSync(join(CORPUS_DIR, "web/MANIFEST.tsv")) && existsSync(join(CORPUS_DIR, "histories/bip-0340.xml.br"));
export const NO_CORPUS_REASON = `shared corpus not found at ${CORPUS_DIR}`;
/** Null when the corpus is there; else why not. */
export const NO_CORPUS = HAVE_CORPUS ? null : NO_CORPUS_REASON;

export const REFERENCE_TOOLS = ["brotli", "lz4", "gzip"] as const;
export const HAVE_TOOLS = REFERENCE_TOOLS.every(
  (tool) => spawnSync(tool, ["--version"], { stdio: "ignore" }).status === 0,
);
export const NO_TOOLS_REASON = `reference tools missing: need ${REFERENCE_TOOLS.join(", ")} on PATH`;
/** Null when the tools run; else why not. */
export const NO_TOOLS = HAVE_TOOLS ? null : NO_TOOLS_REASON;

export interface CorpusFile {
  /** Path under web/ (or the history excerpt's name). */
  name: string;
  bytes: Uint8Array;
}

/**
 * Five web files per kind (html, css, js): the smallest, the largest and the
 * quartiles by size, so the sample spans 1 KB to 256 KB without being chosen by hand.
 */
export function webSample(): CorpusFile[] {
  const rows = readFileSync(join(CORPUS_DIR, "web/MANIFEST.tsv"), "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => line.split("\t"))
    .map(([path, bytes]) => ({ path: path!, bytes: Number(bytes) }));
  const sample: CorpusFile[] = [];
  for (const kind of ["html", "css", "js"]) {
    const files = rows
      .filter((r) => r.path.startsWith(`${kind}/`))
      .sort((a, b) => a.bytes - b.bytes || a.path.localeCompare(b.path));
    const picks = new Set([0, 0.25, 0.5, 0.75, 1].map((q) => Math.round(q * (files.length - 1))));
    for (const i of picks)
      sample.push({ name: files[i]!.path, bytes: readFileSync(join(CORPUS_DIR, "web", files[i]!.path)) });
  }
  return sample;
}

let bip0340: Buffer | undefined;

/** The first `length` bytes of the bip-0340 revision history (MediaWiki XML), decompressed with Node's zlib once per file. */
export function historyExcerpt(length = 2_000_000): CorpusFile {
  bip0340 ??= brotliDecompressSync(readFileSync(join(CORPUS_DIR, "histories/bip-0340.xml.br")));
  const xml = bip0340;
  if (xml.byteLength < length) throw new Error(`bip-0340 history is only ${xml.byteLength} bytes`);
  return { name: `bip-0340.xml[0..${length})`, bytes: xml.subarray(0, length) };
}

export interface RunResult {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs a command with `input` on stdin and collects everything it writes. */
export function run(
  command: string,
  args: readonly string[],
  input: Uint8Array = new Uint8Array(0),
): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", reject);
    child.on("close", (status) =>
      resolvePromise({ status, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8") }),
    );
    // A child that exits early (usage errors) closes stdin under us; that is its answer, not ours.
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
  });
}

/** `palimpsest <args>` exactly as a developer runs it: node src/tools/cli/palimpsest.js. */
export function palimpsest(args: readonly string[], input?: Uint8Array): Promise<RunResult> {
  return run(process.execPath, [join(REPO_ROOT, "src/tools/cli/palimpsest.js"), ...args], input);
}

/** Runs a reference tool and insists it succeeded. */
export async function tool(command: string, args: readonly string[], input: Uint8Array): Promise<Buffer> {
  const result = await run(command, args, input);
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr.trim()}`);
  return result.stdout;
}
