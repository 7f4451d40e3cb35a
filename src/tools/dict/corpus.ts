/**
 * Which files a static-dictionary run reads: every file under the given
 * directories whose extension names a content type (.html/.htm, .css,
 * .js/.mjs), in a fixed order, optionally cut to one part of a fixed split.
 *
 * The split is by the SHA-256 of the file's path relative to the directory
 * it was found under (`html/git-doc/git.html` for `../shared/corpus/web`):
 * a first digest byte ≡ 0 (mod 3) is held out, the rest (about 2/3) is for
 * training. A path's part never depends on what else is in the corpus, so
 * the trainer (`dict train --part train`) and the bench
 * (`bench dict --part held-out`) agree on it as long as they are given the
 * same directory.
 *
 * @example
 * const files = corpusFiles(["../shared/corpus/web"], { type: "css", part: "held-out" });
 * files[0]; // { path: "/…/web/css/…", key: "css/…", type: "css", bytes: 5321 }
 */
import { createHash } from "node:crypto";
import { errorMessage } from "../../lib/errors.ts";
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { StaticDictType } from "../../codec/dict/static-dict.ts";

export const PARTS = ["all", "train", "held-out"] as const;
export type CorpusPart = (typeof PARTS)[number];

export interface CorpusFile {
  /** Where to read it. */
  path: string;
  /** Path relative to the directory given, with `/`: what the split hashes and what sorts the list. */
  key: string;
  type: StaticDictType;
  bytes: number;
}

/** A directory that cannot be listed, or one with nothing of the type asked for. */
export class CorpusError extends Error {
  override name = "CorpusError";
}

/** The content type a file's extension names, or undefined for anything else. */
export function typeOfPath(path: string): StaticDictType | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  if (ext === "html" || ext === "htm") return "html";
  if (ext === "css") return "css";
  if (ext === "js" || ext === "mjs") return "js";
  return undefined;
}

/** The part a path (relative, `/`-separated) belongs to. */
export function partOf(key: string): Exclude<CorpusPart, "all"> {
  return createHash("sha256").update(key).digest()[0]! % 3 === 0 ? "held-out" : "train";
}

function walk(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new CorpusError(`cannot list ${dir}: ${errorMessage(err)}`);
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** Byte order, not locale order: the same list on every machine. */
const byKey = (a: CorpusFile, b: CorpusFile) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export function corpusFiles(
  dirs: readonly string[],
  options: { type?: StaticDictType; part?: CorpusPart } = {},
): CorpusFile[] {
  const part = options.part ?? "all";
  const files: CorpusFile[] = [];
  for (const dir of dirs) {
    for (const path of walk(dir)) {
      const type = typeOfPath(path);
      if (type === undefined || (options.type !== undefined && type !== options.type)) continue;
      const key = relative(dir, path).split(sep).join("/");
      if (part !== "all" && partOf(key) !== part) continue;
      files.push({ path, key, type, bytes: statSync(path).size });
    }
  }
  return files.sort(byKey);
}
