/**
 * The file an archive export is written to, so that an interrupted export
 * resumes and ends byte-identical to one that never stopped. The XML goes,
 * page by page, into `FILE.part`; after each whole page, `FILE.progress`
 * records how many bytes of it are whole pages, how many pages are done and
 * the last one's key. A re-run cuts `FILE.part` back to that length (a page
 * cut off part way goes) and carries on after that page. Once every page is
 * in, the root is closed, and `FILE.part` is compressed into `FILE` as its
 * name says (`.xml` as it is, `.gz`, `.br`, `.bz2`), then both work files go.
 *
 * Compressing once at the end, rather than as the pages come, is what makes
 * the result independent of where a run was cut: a brotli or gzip stream's
 * state cannot be kept across runs, and brotli streams cannot be joined.
 * Every coder here is deterministic (Node's zlib gzip writes no time in its
 * header), so the same XML gives the same file. `.bz2` spawns Debian's
 * `bzip2`: npm has bzip2 decoders but no maintained streaming encoder
 * (compressjs and libbzip2-wasm hold the whole input in memory, and have not
 * changed in years).
 *
 * @example
 * const work = await ExportFile.open("backup.xml.br", "all pages of http://localhost:8787");
 * if (!work.donePage(key)) { await work.write(bytes); await work.pageDone(key, revisions); }
 * await work.finish();
 */
import { spawn } from "node:child_process";
import { errorMessage } from "../../lib/errors.ts";
import { createReadStream, createWriteStream } from "node:fs";
import { open, readFile, rename, rm, stat, truncate, writeFile, type FileHandle } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { constants, createBrotliCompress, createGzip } from "node:zlib";
import { UsageError } from "../local/output.ts";
import { EXPORT_CLOSE, EXPORT_OPEN } from "./page-splice.ts";

export type OutputKind = "xml" | "gz" | "br" | "bz2";

/** How the file's name says to write it. */
export function outputKind(file: string): OutputKind {
  const ext = /\.(xml|gz|br|bz2)$/.exec(file)?.[1] as OutputKind | undefined;
  if (!ext) throw new UsageError(`${file}: the export's name must end in .xml, .gz, .br or .bz2`);
  return ext;
}

interface Progress {
  format: 1;
  /** What is being exported (the archive and which pages): a run for another selection must not continue this one. */
  selection: string;
  pagesDone: number;
  lastKey: string | null;
  /** Bytes of FILE.part that are whole pages. */
  partBytes: number;
  revisions: number;
  /** Every page is in FILE.part and its root closed; only the compression is left. */
  complete: boolean;
}

/** Brotli as the shared corpus is written: quality 9 with a 16 MiB window, which reaches the revision before on pages of up to several MB. */
const BROTLI_QUALITY = 9;
const BROTLI_LGWIN = 24;

export class ExportFile {
  readonly #file: string;
  readonly #kind: OutputKind;
  #progress: Progress;
  #handle: FileHandle | null = null;
  #pending = 0;

  private constructor(file: string, kind: OutputKind, progress: Progress) {
    this.#file = file;
    this.#kind = kind;
    this.#progress = progress;
  }

  get partPath(): string {
    return `${this.#file}.part`;
  }

  get progressPath(): string {
    return `${this.#file}.progress`;
  }

  /** Pages and revisions already written by earlier runs. */
  get resumed(): { pages: number; revisions: number; lastKey: string | null } {
    const p = this.#progress;
    return { pages: p.pagesDone, revisions: p.revisions, lastKey: p.lastKey };
  }

  get complete(): boolean {
    return this.#progress.complete;
  }

  /** Starts an export to `file`, or resumes the one its work files describe. */
  static async open(file: string, selection: string): Promise<ExportFile> {
    const kind = outputKind(file);
    const progressPath = `${file}.progress`;
    const partPath = `${file}.part`;
    let progress: Progress | null = null;
    try {
      progress = JSON.parse(await readFile(progressPath, "utf8")) as Progress;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT")
        throw new Error(
          `${progressPath} is unreadable (${errorMessage(err)}); delete it and ${partPath} to start over`,
        );
    }
    if (progress) {
      if (progress.format !== 1 || progress.selection !== selection)
        throw new UsageError(
          `${progressPath} belongs to another export (${progress.selection}); delete it and ${partPath}, or export to another file`,
        );
      const size = await stat(partPath).then(
        (s) => s.size,
        () => -1,
      );
      if (size < progress.partBytes)
        throw new Error(
          `${partPath} holds ${Math.max(size, 0)} bytes where ${progressPath} counts ${progress.partBytes}; delete both to start over`,
        );
      // Whatever follows the last whole page is a page cut off part way.
      await truncate(partPath, progress.partBytes);
      return new ExportFile(file, kind, progress);
    }
    if (
      await stat(file).then(
        () => true,
        () => false,
      )
    )
      throw new UsageError(`${file} exists; remove it or export to another file`);
    await writeFile(partPath, EXPORT_OPEN);
    const fresh: Progress = {
      format: 1,
      selection,
      pagesDone: 0,
      lastKey: null,
      partBytes: EXPORT_OPEN.byteLength,
      revisions: 0,
      complete: false,
    };
    const work = new ExportFile(file, kind, fresh);
    await work.#save();
    return work;
  }

  async #save(): Promise<void> {
    const tmp = `${this.progressPath}.tmp`;
    await writeFile(tmp, `${JSON.stringify(this.#progress)}\n`);
    await rename(tmp, this.progressPath);
  }

  /** Appends bytes of the page being written. */
  async write(bytes: Uint8Array): Promise<void> {
    this.#handle ??= await open(this.partPath, "a");
    await this.#handle.write(bytes);
    this.#pending += bytes.byteLength;
  }

  /** The page written since the last one is whole: it is on disk before the progress says so. */
  async pageDone(key: string, revisions: number): Promise<void> {
    await this.#handle?.datasync();
    const p = this.#progress;
    p.partBytes += this.#pending;
    p.pagesDone++;
    p.lastKey = key;
    p.revisions += revisions;
    this.#pending = 0;
    await this.#save();
  }

  /** Forgets bytes written since the last whole page (a page that failed part way). */
  async discardPage(): Promise<void> {
    await this.#handle?.close();
    this.#handle = null;
    await truncate(this.partPath, this.#progress.partBytes);
    this.#pending = 0;
  }

  /** Closes the root, compresses into the file, removes the work files; returns the file's size. */
  async finish(): Promise<number> {
    if (!this.#progress.complete) {
      await this.write(EXPORT_CLOSE);
      await this.#handle?.datasync();
      this.#progress.partBytes += this.#pending;
      this.#pending = 0;
      this.#progress.complete = true;
      await this.#save();
    }
    await this.#handle?.close();
    this.#handle = null;
    const tmp = `${this.#file}.tmp`;
    if (this.#kind === "xml") await rename(this.partPath, tmp);
    else await compress(this.#kind, this.partPath, tmp);
    await rename(tmp, this.#file);
    await rm(this.partPath, { force: true });
    await rm(this.progressPath, { force: true });
    return (await stat(this.#file)).size;
  }

  async close(): Promise<void> {
    await this.#handle?.close();
    this.#handle = null;
  }
}

async function compress(kind: Exclude<OutputKind, "xml">, from: string, to: string): Promise<void> {
  if (kind === "bz2") return bzip2(from, to);
  const size = (await stat(from)).size;
  const coder =
    kind === "gz"
      ? createGzip({ level: 9 })
      : createBrotliCompress({
          params: {
            [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
            [constants.BROTLI_PARAM_LGWIN]: BROTLI_LGWIN,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: Math.min(size, 2 ** 30),
          },
        });
  await pipeline(createReadStream(from), coder, createWriteStream(to));
}

function bzip2(from: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bzip2", ["-9", "-c"], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", (err) =>
      reject(
        new Error(
          `cannot run bzip2 to write .bz2 (${(err as NodeJS.ErrnoException).code ?? err.message}): install it (apt-get install bzip2) or export to .xml, .gz or .br`,
        ),
      ),
    );
    const done = Promise.all([
      pipeline(createReadStream(from), child.stdin),
      pipeline(child.stdout, createWriteStream(to)),
      new Promise<void>((res, rej) =>
        child.on("close", (code) =>
          code === 0 ? res() : rej(new Error(`bzip2 failed (exit ${code}): ${stderr.trim()}`)),
        ),
      ),
    ]);
    done.then(() => resolve(), reject);
  });
}
