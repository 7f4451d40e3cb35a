/**
 * What the dictionary-transport tests send: revisions of varied text (words
 * drawn from a seeded generator, so br has real work), each changing one
 * line, and the `Available-Dictionary` header of a body a client holds.
 */
import { mulberry32 } from "../../../src/lib/mulberry32.ts";

/** The words the varied text is drawn from. */
export const WORDS = [
  "archive",
  "revision",
  "vellum",
  "quill",
  "margin",
  "gloss",
  "scribe",
  "folio",
  "ink",
  "erased",
  "written",
  "again",
  "palimpsest",
  "leaf",
  "codex",
];

/**
 * Revision i's text: `lines` lines of ten words (each ending in a number when
 * `numbered`), line `i * editStride` marked as edited in revision i.
 */
export function variedProse(options: {
  seed: number;
  lines: number;
  editStride: number;
  numbered?: boolean;
}): (i: number) => string {
  const next = mulberry32(options.seed);
  const lines = Array.from(
    { length: options.lines },
    () =>
      Array.from({ length: 10 }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ") +
      (options.numbered ? ` ${Math.floor(next() * 1e6)}` : ""),
  );
  return (i) =>
    `== Revision ${i} ==\n` +
    lines.map((l, n) => (n === i * options.editStride ? `${l} (edited in ${i})` : l)).join("\n") +
    "\n";
}

/** The `Available-Dictionary` value naming `body` as a held dictionary: its SHA-256 as a structured-field byte sequence. */
export async function availableDictionary(body: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
  return `:${btoa(String.fromCharCode(...digest))}:`;
}
