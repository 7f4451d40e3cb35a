/**
 * The texts `bench hostile` writes, all seeded (mulberry32), so every run
 * and the before/after runs of a fix send the same bytes: the issue's
 * compare pair (lines of random words), histories whose revisions differ by
 * a few edited lines (a walk and dcb pairs), and the refused write bodies
 * (just under `storage.maxRequestBytes` of `{}` elements or of nested arrays).
 *
 * @example
 * const pair = [randomWords(1), randomWords(2)]; // 500 lines of 3,900 characters each: a compare pair that once cost 2 s of CPU
 * const history = editedHistory(3, 24, 64 * 1024); // 24 revisions of ~64 KiB, each a few lines from the one before
 */
import { mulberry32 } from "../../../lib/mulberry32.ts";

function vocabulary(rand: () => number, size = 2_000): string[] {
  return Array.from({ length: size }, () =>
    Array.from({ length: 3 + Math.floor(rand() * 7) }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join(
      "",
    ),
  );
}

function line(rand: () => number, words: readonly string[], width: number): string {
  const out: string[] = [];
  let length = -1;
  while (length < width) {
    const word = words[Math.floor(rand() * words.length)]!;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(" ").slice(0, width);
}

/** A hostile compare text (every line differs, and each is long): `lines` lines of `width` characters of words picked at random. */
export function randomWords(seed: number, lines = 500, width = 3_900): string {
  const rand = mulberry32(seed);
  const words = vocabulary(rand);
  return Array.from({ length: lines }, () => line(rand, words, width)).join("\n") + "\n";
}

/**
 * `count` revisions of about `bytes` each (lines of 100 characters): each is
 * the one before with `edits` lines rewritten, as a wiki's history is.
 */
export function editedHistory(seed: number, count: number, bytes: number, edits = 4): string[] {
  const rand = mulberry32(seed);
  const words = vocabulary(rand);
  const lines = Array.from({ length: Math.max(1, Math.round(bytes / 101)) }, () => line(rand, words, 100));
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) for (let e = 0; e < edits; e++) lines[Math.floor(rand() * lines.length)] = line(rand, words, 100);
    out.push(`== Revision ${i + 1} ==\n${lines.join("\n")}\n`);
  }
  return out;
}

/** `head`, then `unit` as often as fits in `bytes` with `tail`, then `tail`. */
function filled(bytes: number, head: string, unit: string, tail: string): Buffer {
  const n = Math.floor((bytes - head.length - tail.length) / unit.length);
  const out = Buffer.allocUnsafe(head.length + n * unit.length + tail.length);
  out.write(head, 0, "latin1");
  out.fill(unit, head.length, head.length + n * unit.length, "latin1");
  out.write(tail, head.length + n * unit.length, "latin1");
  return out;
}

/** A write body of `{}` revisions up to `bytes`: millions of objects if parsed whole. */
export function objectFlood(bytes: number): Buffer {
  return filled(bytes, '{"revisions":[', "{},", "{}]}");
}

/** A write body of arrays nested as deep as `bytes` allows. */
export function nestedFlood(bytes: number): Buffer {
  const head = '{"revisions":';
  const depth = Math.floor((bytes - head.length - 1) / 2);
  const out = Buffer.allocUnsafe(head.length + 2 * depth + 1);
  out.write(head, 0, "latin1");
  out.fill("[", head.length, head.length + depth, "latin1");
  out.fill("]", head.length + depth, head.length + 2 * depth, "latin1");
  out.write("}", head.length + 2 * depth, "latin1");
  return out;
}
