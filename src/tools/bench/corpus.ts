/**
 * What the codec bench compresses. Two lists over the same bytes:
 *
 * - `items`: whole inputs, each compressed on its own, as the archive stores
 *   one response or one revision at a time. Every row without a dictionary,
 *   and its baseline, runs over exactly these.
 * - `pairs`: an input and a *related* earlier input to use as a raw brotli
 *   dictionary, as a revision delta does. The dictionary rows run over these.
 *
 * The default sample is a fixed, deterministic slice of the shared corpus
 * (`../shared/corpus` from the repo root): every k-th HTML, CSS and JS file
 * listed in web/MANIFEST.tsv (k chosen per type to land near a byte target),
 * plus the first 4 MiB of the bip-0340 revision history.
 *
 * @example
 * const sample = defaultSample(DEFAULT_CORPUS_DIR, { quick: false });
 * const mine = fileSample(["a.html", "b.html"]);
 */
import { existsSync, readFileSync } from "node:fs";
import { errorMessage } from "../../lib/errors.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync } from "node:zlib";

export interface BenchItem {
  label: string;
  bytes: Uint8Array;
}

export interface DictPair {
  label: string;
  input: Uint8Array;
  dictionary: Uint8Array;
}

export interface BenchSample {
  description: string;
  items: BenchItem[];
  pairs: DictPair[];
}

/** `../shared/corpus` relative to the repository root (this file is src/tools/bench/corpus.ts). */
export const DEFAULT_CORPUS_DIR = fileURLToPath(new URL("../../../../shared/corpus/", import.meta.url));

/** No files were given and there is no corpus to fall back on. */
export class CorpusMissingError extends Error {}

/** A named file could not be used. */
export class BenchInputError extends Error {}

const HISTORY = "histories/bip-0340.xml.br";

interface SampleSize {
  /** Target bytes per web type; every k-th manifest entry is taken to get near it. */
  web: Record<"html" | "css" | "js", number>;
  historyBytes: number;
}

const FULL: SampleSize = { web: { html: 1_500_000, css: 750_000, js: 750_000 }, historyBytes: 4 << 20 };
const QUICK: SampleSize = { web: { html: 200_000, css: 100_000, js: 100_000 }, historyBytes: 512 << 10 };

interface ManifestEntry {
  path: string;
  bytes: number;
}

function readManifest(corpusDir: string): ManifestEntry[] {
  const text = readFileSync(join(corpusDir, "web", "MANIFEST.tsv"), "utf8");
  return text
    .split("\n")
    .slice(1)
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [path, bytes] = line.split("\t");
      return { path: path!, bytes: Number(bytes) };
    });
}

/** Every k-th entry of one type, in manifest order, so the pick never depends on file-system order. */
function strideSelect(entries: ManifestEntry[], target: number): ManifestEntry[] {
  const total = entries.reduce((n, e) => n + e.bytes, 0);
  const stride = Math.max(1, Math.ceil(total / target));
  return entries.filter((_, i) => i % stride === 0);
}

export function defaultSample(corpusDir: string, options: { quick: boolean }): BenchSample {
  const manifest = join(corpusDir, "web", "MANIFEST.tsv");
  const history = join(corpusDir, HISTORY);
  if (!existsSync(manifest) || !existsSync(history)) {
    throw new CorpusMissingError(
      `no FILES given and the benchmark corpus is missing (looked for ${manifest} and ${history}); pass files to benchmark or --corpus DIR`,
    );
  }
  const size = options.quick ? QUICK : FULL;
  const entries = readManifest(corpusDir);
  const items: BenchItem[] = [];
  const pairs: DictPair[] = [];
  let webBytes = 0;
  for (const type of ["html", "css", "js"] as const) {
    const picked = strideSelect(
      entries.filter((e) => e.path.startsWith(`${type}/`)),
      size.web[type],
    );
    // Dictionary for each file: the previous picked file from the same source
    // package (same site generator or library), the kind of "related earlier
    // document" a content-type or sibling-page dictionary would be.
    let prev: { source: string; bytes: Uint8Array } | undefined;
    for (const entry of picked) {
      const bytes = readFileSync(join(corpusDir, "web", entry.path));
      const source = entry.path.split("/")[1]!;
      items.push({ label: `web/${entry.path}`, bytes });
      if (prev?.source === source) pairs.push({ label: `web/${entry.path}`, input: bytes, dictionary: prev.bytes });
      prev = { source, bytes };
      webBytes += bytes.byteLength;
    }
  }
  // The whole history decompresses to ~7 MB, so no need to stream it.
  const excerpt = brotliDecompressSync(readFileSync(history)).subarray(0, size.historyBytes);
  items.push({ label: `${HISTORY} (first ${excerpt.byteLength} bytes)`, bytes: excerpt });
  pairs.push(...chainPairs(HISTORY, segment(excerpt)));
  return {
    description:
      `${items.length - 1} web files from ${join(corpusDir, "web")} (${webBytes} bytes, every k-th of html/css/js in MANIFEST.tsv)` +
      ` + first ${excerpt.byteLength} bytes of ${HISTORY}`,
    items,
    pairs,
  };
}

/**
 * User-named files: each is one item. For the dictionary rows each file is
 * treated as a history of itself: cut into revisions if it is a MediaWiki
 * export, otherwise into revision-sized slices, each compressed against the
 * slice before it.
 */
export function fileSample(paths: readonly string[]): BenchSample {
  const items: BenchItem[] = [];
  const pairs: DictPair[] = [];
  for (const path of paths) {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(path);
    } catch (err) {
      throw new BenchInputError(`cannot read ${path}: ${errorMessage(err)}`);
    }
    if (bytes.byteLength === 0) throw new BenchInputError(`${path} is empty`);
    items.push({ label: path, bytes });
    pairs.push(...chainPairs(path, segment(bytes)));
  }
  const total = items.reduce((n, i) => n + i.bytes.byteLength, 0);
  return { description: `${items.length} file(s), ${total} bytes`, items, pairs };
}

/** Median revision of the shared histories' wikitext is ~32 KB; plain files are cut to that. */
const SLICE_BYTES = 32 * 1024;
const REVISION_TAG = Buffer.from("<revision>");

/**
 * Revision-sized segments of one text. For a MediaWiki export, each segment
 * is one `<revision>` element (the header rides with the first); otherwise
 * fixed slices, halved for files under two slices so there is a pair at all.
 */
export function segment(bytes: Uint8Array): Uint8Array[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const starts: number[] = [];
  for (let at = buf.indexOf(REVISION_TAG); at >= 0; at = buf.indexOf(REVISION_TAG, at + 1)) starts.push(at);
  if (starts.length >= 2) {
    const bounds = [0, ...starts.slice(1), bytes.byteLength];
    return bounds.slice(1).map((end, i) => bytes.subarray(bounds[i], end));
  }
  const slice = Math.max(1, Math.min(SLICE_BYTES, Math.floor(bytes.byteLength / 2)));
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += slice) out.push(bytes.subarray(at, at + slice));
  return out;
}

function chainPairs(label: string, segments: Uint8Array[]): DictPair[] {
  return segments.slice(1).map((input, i) => ({ label: `${label}#${i + 1}`, input, dictionary: segments[i]! }));
}
