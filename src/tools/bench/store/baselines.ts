/**
 * What the archive's storage ratio is compared against, computed in the same
 * run from the same revision texts, fed one revision at a time so a history
 * of hundreds of megabytes never sits in memory:
 *
 * - `per_rev_gzip`: node:zlib gzip level 6 of each revision on its own
 *   (ratio = sum of the gzip sizes / raw bytes): what storing every revision
 *   compressed but independently costs.
 * - `block16m_brotli9`: the revisions concatenated in order, cut into 16 MiB
 *   blocks, each block brotli quality 9 with a 16 MiB window (lgwin 24)
 *   via node:zlib; ratio = sum of the block sizes / raw. Solid compression
 *   with no random access to speak of.
 * - `git_pack`: each revision committed as the single file `page.txt` of a
 *   fresh bare repository (one commit per revision, fixed committer and
 *   date, message `r<revid>`, via `git fast-import`), then
 *   `git repack -adf --window=250 --depth=50` (git's "aggressive" delta
 *   search); ratio = bytes of the resulting `.pack` plus `.idx` file(s) / raw,
 *   the storage target's anchor (targets.ts): a pack is unusable without its index.
 *   Earlier runs counted the pack alone, because that matched the reference
 *   figures best (bip-0340 1.03 %, w3c-aria 0.129 % of raw: the pack alone
 *   lands about 5 % above them, 1.085 % and 0.1356 %; pack + idx 28 % and
 *   14 % above, 1.32 % and 0.148 %); `gitPackBytes` alone is still reported
 *   (`baseline_git_pack_only_ratio`) so those runs stay comparable. Git's own
 *   configuration is ignored (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null)
 *   so the figure does not depend on the machine. `null` when git is not
 *   installed.
 * - `xz`: the revisions concatenated in order (no separators), streamed
 *   into `xz -9e -T1 -c` (one thread: one solid stream, the same output on
 *   any machine; XZ_DEFAULTS and XZ_OPT are cleared for the same reason);
 *   ratio = bytes of its `.xz` output / raw. The storage target's
 *   solid-compression anchor (targets.ts). `null` when xz is not installed.
 *
 * gzip and brotli run on libuv's thread pool and git and xz in their own
 * processes, so all four proceed side by side while the export is read.
 *
 * A whole wiki ({@link WikiBaselines}) gets the same figures over all its
 * revisions in the export's order (solid across pages, git left out), and
 * `xz_per_page`: each page's revisions concatenated and compressed alone with
 * the same `xz -9e`, one process per page; the figure is the sum of their
 * sizes, what compressing every page on its own costs.
 *
 * @example
 * const b = await Baselines.start();
 * for await (const rev of exportRevisions(file)) await b.add(rev.id, rev.text);
 * const figures = await b.finish(); // { rawBytes, gzipBytes, brotliBytes, gitPackBytes, gitIdxBytes, xzBytes }
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants as z, gzip } from "node:zlib";

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

const BROTLI_BLOCK_BYTES = 16 * 1024 * 1024;
export const GZIP_LEVEL = 6;
const BROTLI_BASELINE = { quality: 9, lgwin: 24 } as const;
const GIT_REPACK_ARGS = ["repack", "-a", "-d", "-f", "-q", "--window=250", "--depth=50"] as const;
const XZ_ARGS = ["-9e", "-T1", "-c"] as const;

export interface BaselineFigures {
  rawBytes: number;
  gzipBytes: number;
  brotliBytes: number;
  /** null when git is not installed. */
  gitPackBytes: number | null;
  gitIdxBytes: number | null;
  /** null when xz is not installed. */
  xzBytes: number | null;
}

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_TERMINAL_PROMPT: "0" };
const XZ_ENV = (({ XZ_DEFAULTS: _d, XZ_OPT: _o, ...env }) => env)(process.env);
/** 2010-01-01T00:00:00Z: every commit gets the same date; only content and order matter. */
const COMMITTER = "committer Palimpsest Bench <bench@palimpsest.invalid> 1262304000 +0000\n";

/** Whether `command --version` runs. */
function installed(command: string): boolean {
  return spawnSync(command, ["--version"], { stdio: "ignore" }).status === 0;
}

const gitAvailable = () => installed("git");
const xzAvailable = () => installed("xz");

function runGit(args: readonly string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd, env: GIT_ENV, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`git ${args.join(" ")} exited with ${code}: ${stderr.trim()}`)),
    );
  });
}

/** A child process fed on stdin with backpressure, whose stdout is counted (not kept). */
class FedProcess {
  readonly #child: ReturnType<typeof spawn>;
  readonly #exited: Promise<void>;
  #stdoutBytes = 0;
  #stderr = "";
  #failed: Error | null = null;

  constructor(command: string, args: readonly string[], options: { cwd?: string; env: NodeJS.ProcessEnv }) {
    const name = `${command} ${args.join(" ")}`;
    this.#child = spawn(command, args, { ...options, stdio: ["pipe", "pipe", "pipe"] });
    this.#child.stdout!.on("data", (d: Buffer) => (this.#stdoutBytes += d.byteLength));
    this.#child.stderr!.on("data", (d: Buffer) => (this.#stderr += d.toString()));
    this.#child.stdin!.on("error", (err) => (this.#failed ??= err));
    this.#exited = new Promise((resolve, reject) => {
      this.#child.on("error", reject);
      this.#child.on("close", (code) =>
        code === 0 ? resolve() : reject(new Error(`${name} exited with ${code}: ${this.#stderr.trim()}`)),
      );
    });
    this.#exited.catch((err: Error) => (this.#failed ??= err));
  }

  /** Writes the chunks, waiting for the pipe to drain (or the process to end) when it is full. */
  async write(...chunks: (string | Uint8Array)[]): Promise<void> {
    if (this.#failed) throw this.#failed;
    const stdin = this.#child.stdin!;
    let room = true;
    for (const chunk of chunks) room = stdin.write(chunk);
    if (!room) await Promise.race([once(stdin, "drain"), this.#exited]);
  }

  /** Closes stdin and waits for a clean exit; returns the bytes written to stdout. */
  async end(): Promise<number> {
    this.#child.stdin!.end();
    await this.#exited;
    return this.#stdoutBytes;
  }

  kill(): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill();
  }
}

/** A bare repository fed by `git fast-import` on stdin, one commit per revision. */
class GitPack {
  private constructor(
    private readonly dir: string,
    private readonly importer: FedProcess,
  ) {}

  static async create(): Promise<GitPack> {
    const dir = mkdtempSync(join(tmpdir(), "palimpsest-bench-git-"));
    try {
      await runGit(["init", "-q", "--bare", "."], dir);
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    return new GitPack(dir, new FedProcess("git", ["fast-import", "--quiet"], { cwd: dir, env: GIT_ENV }));
  }

  commit(revisionId: number, text: Buffer): Promise<void> {
    const message = `r${revisionId}\n`;
    const head = `commit refs/heads/main\n${COMMITTER}data ${Buffer.byteLength(message)}\n${message}M 100644 inline page.txt\ndata ${text.byteLength}\n`;
    return this.importer.write(head, text, "\n");
  }

  /** Ends the import, repacks aggressively and returns the pack and index sizes. */
  async finish(): Promise<{ packBytes: number; idxBytes: number }> {
    try {
      await this.importer.end();
      await runGit(GIT_REPACK_ARGS, this.dir);
      const packDir = join(this.dir, "objects", "pack");
      let packBytes = 0;
      let idxBytes = 0;
      for (const name of readdirSync(packDir)) {
        const size = statSync(join(packDir, name)).size;
        if (name.endsWith(".pack")) packBytes += size;
        else if (name.endsWith(".idx")) idxBytes += size;
      }
      if (packBytes === 0) throw new Error(`git repack left no pack in ${packDir}`);
      if (idxBytes === 0) throw new Error(`git repack left no index in ${packDir}`);
      return { packBytes, idxBytes };
    } finally {
      this.dispose();
    }
  }

  dispose(): void {
    this.importer.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** One solid `xz -9e` stream: write the bytes, and `end()` gives the size of its output. */
function startXz(): FedProcess {
  return new FedProcess("xz", XZ_ARGS, { env: XZ_ENV });
}

export class Baselines {
  #rawBytes = 0;
  #gzipBytes = 0;
  #brotliBytes = 0;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #brotliInFlight: Promise<void> = Promise.resolve();

  private constructor(
    private readonly git: GitPack | null,
    private readonly xz: FedProcess | null,
  ) {}

  /** Starts the baselines; without git (xz) on PATH, or with `git: false` (`xz: false`), that figure is null. */
  static async start(options: { git?: boolean; xz?: boolean } = {}): Promise<Baselines> {
    const git = (options.git ?? true) && gitAvailable() ? await GitPack.create() : null;
    const xz = (options.xz ?? true) && xzAvailable() ? startXz() : null;
    return new Baselines(git, xz);
  }

  get hasGit(): boolean {
    return this.git !== null;
  }

  get hasXz(): boolean {
    return this.xz !== null;
  }

  /** Feeds the next revision, in history order. */
  async add(revisionId: number, text: string): Promise<void> {
    const bytes = Buffer.from(text, "utf8");
    this.#rawBytes += bytes.byteLength;
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.byteLength;
    while (this.#pendingBytes >= BROTLI_BLOCK_BYTES) await this.#cutBlock();
    const [gz] = await Promise.all([
      gzipAsync(bytes, { level: GZIP_LEVEL }),
      this.git?.commit(revisionId, bytes),
      this.xz?.write(bytes),
    ]);
    this.#gzipBytes += gz.byteLength;
  }

  /** Cuts exactly one 16 MiB block off the pending bytes and starts compressing it once the previous block is done. */
  async #cutBlock(): Promise<void> {
    const all = Buffer.concat(this.#pending, this.#pendingBytes);
    const block = all.subarray(0, BROTLI_BLOCK_BYTES);
    const rest = Buffer.from(all.subarray(BROTLI_BLOCK_BYTES));
    this.#pending = rest.byteLength > 0 ? [rest] : [];
    this.#pendingBytes = rest.byteLength;
    await this.#brotliInFlight;
    this.#brotliInFlight = this.#compressBlock(block);
    // Awaited by the next block or by finish(); this only stops an early exit from reporting it as unhandled.
    this.#brotliInFlight.catch(() => undefined);
  }

  async #compressBlock(block: Buffer): Promise<void> {
    const out = await brotliAsync(block, {
      params: {
        [z.BROTLI_PARAM_QUALITY]: BROTLI_BASELINE.quality,
        [z.BROTLI_PARAM_LGWIN]: BROTLI_BASELINE.lgwin,
        [z.BROTLI_PARAM_SIZE_HINT]: block.byteLength,
      },
    });
    this.#brotliBytes += out.byteLength;
  }

  async finish(): Promise<BaselineFigures> {
    await this.#brotliInFlight;
    if (this.#pendingBytes > 0) {
      await this.#compressBlock(Buffer.concat(this.#pending, this.#pendingBytes));
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    // git repacks while xz compresses its last window.
    const [git, xzBytes] = await Promise.all([this.git?.finish() ?? null, this.xz?.end() ?? null]);
    return {
      rawBytes: this.#rawBytes,
      gzipBytes: this.#gzipBytes,
      brotliBytes: this.#brotliBytes,
      gitPackBytes: git?.packBytes ?? null,
      gitIdxBytes: git?.idxBytes ?? null,
      xzBytes,
    };
  }

  /** Stops early (after an error): kills git and xz and removes git's repository. */
  dispose(): void {
    this.git?.dispose();
    this.xz?.kill();
  }
}

/** One page's share of a {@link WikiBaselines} pass. */
export interface PageBaseline {
  title: string;
  revisions: number;
  rawBytes: number;
  /** `xz -9e` of this page's revisions alone; null when xz is not installed (or not asked for). */
  xzBytes: number | null;
}

/** {@link Baselines} over a whole wiki (solid, in the export's order, no git), and xz of each page alone. */
export class WikiBaselines {
  readonly #pages: PageBaseline[] = [];
  #pageXz: FedProcess | null = null;

  private constructor(private readonly whole: Baselines) {}

  static async start(options: { xz?: boolean } = {}): Promise<WikiBaselines> {
    return new WikiBaselines(await Baselines.start({ git: false, xz: options.xz }));
  }

  get hasXz(): boolean {
    return this.whole.hasXz;
  }

  /** Feeds one page's revisions, in order; pages one after another. */
  async addPage(title: string, revisions: AsyncIterable<{ id: number; text: string }>): Promise<PageBaseline> {
    const xz = this.whole.hasXz ? startXz() : null;
    this.#pageXz = xz;
    let count = 0;
    let rawBytes = 0;
    for await (const rev of revisions) {
      count++;
      rawBytes += Buffer.byteLength(rev.text);
      await Promise.all([this.whole.add(rev.id, rev.text), xz?.write(rev.text)]);
    }
    const page = { title, revisions: count, rawBytes, xzBytes: xz === null ? null : await xz.end() };
    this.#pageXz = null;
    this.#pages.push(page);
    return page;
  }

  async finish(): Promise<{ whole: BaselineFigures; pages: PageBaseline[] }> {
    return { whole: await this.whole.finish(), pages: [...this.#pages] };
  }

  dispose(): void {
    this.#pageXz?.kill();
    this.whole.dispose();
  }
}
