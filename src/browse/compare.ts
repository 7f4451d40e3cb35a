/**
 * Two revisions' texts compared line by line (jsdiff's Myers diff), bounded
 * so a huge or unrelated pair answers quickly with "too big to compare"
 * instead of holding the isolate: each text's size and line count, the edit
 * distance the diff may explore (its time is O((N + M) · D)), and the lines
 * shown. Unchanged runs fold to a few lines of context; a changed line next
 * to its replacement also shows which words changed.
 *
 * @example
 * const result = compareTexts("a\nb\nc\n", "a\nB\nc\n");
 * // { kind: "diff", added: 1, removed: 1, rows: [same a, del b, add B, same c], truncated: false }
 */
import { diffLines, diffWordsWithSpace } from "diff";
import { LIMITS, type LimitName } from "../limits.ts";

/** Unchanged lines kept on each side of a change. */
const CONTEXT = 3;
/** Lines longer than this are not compared word by word. */
const MAX_WORD_DIFF_CHARS = 4_000;

export interface Part {
  text: string;
  changed: boolean;
}

export type Row =
  | { kind: "same"; old: number; new: number; text: string }
  | { kind: "del"; old: number; text: string; parts?: Part[] }
  | { kind: "add"; new: number; text: string; parts?: Part[] }
  | { kind: "gap"; lines: number };

export type Comparison =
  | { kind: "diff"; rows: Row[]; added: number; removed: number; truncated: boolean }
  | { kind: "too_big"; limit: LimitName; detail: string };

function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") || text === "" ? n : n + 1;
}

/** Marks the words that differ between a removed line and the line that replaced it. */
function wordParts(before: string, after: string): { before: Part[]; after: Part[] } | undefined {
  if (before.length > MAX_WORD_DIFF_CHARS || after.length > MAX_WORD_DIFF_CHARS) return undefined;
  const changes = diffWordsWithSpace(before, after, { maxEditLength: 200 });
  if (!changes) return undefined;
  return {
    before: changes.filter((c) => !c.added).map((c) => ({ text: c.value, changed: c.removed })),
    after: changes.filter((c) => !c.removed).map((c) => ({ text: c.value, changed: c.added })),
  };
}

export function compareTexts(before: string, after: string, bytes: { before: number; after: number }): Comparison {
  const maxBytes = LIMITS.browse.compareMaxRevisionBytes;
  if (bytes.before > maxBytes || bytes.after > maxBytes) {
    return { kind: "too_big", limit: "browse.compareMaxRevisionBytes", detail: `A revision is ${Math.max(bytes.before, bytes.after)} bytes; pages compare revisions up to ${maxBytes} bytes.` };
  }
  const maxLines = LIMITS.browse.compareMaxLines;
  const lines = Math.max(lineCount(before), lineCount(after));
  if (lines > maxLines) {
    return { kind: "too_big", limit: "browse.compareMaxLines", detail: `A revision has ${lines} lines; pages compare revisions of up to ${maxLines} lines.` };
  }
  const changes = diffLines(before, after, { maxEditLength: LIMITS.browse.compareMaxEditLength });
  if (!changes) {
    return {
      kind: "too_big",
      limit: "browse.compareMaxEditLength",
      detail: `The revisions differ in more than ${LIMITS.browse.compareMaxEditLength} lines; pages show differences up to that many.`,
    };
  }

  const rows: Row[] = [];
  let [oldLine, newLine, added, removed] = [1, 1, 0, 0];
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    const text = linesOf(change.value);
    if (change.removed) {
      const next = changes[i + 1];
      const replacement = next?.added ? linesOf(next.value) : [];
      const pairs = text.map((line, j) => (j < replacement.length ? wordParts(line, replacement[j]!) : undefined));
      const dels = text.map((line, j): Row => ({ kind: "del", old: oldLine + j, text: line, ...(pairs[j] ? { parts: pairs[j].before } : {}) }));
      const adds = replacement.map((line, j): Row => ({ kind: "add", new: newLine + j, text: line, ...(pairs[j] ? { parts: pairs[j].after } : {}) }));
      rows.push(...dels, ...adds);
      oldLine += text.length;
      newLine += replacement.length;
      removed += text.length;
      added += replacement.length;
      if (next?.added) i++;
    } else if (change.added) {
      text.forEach((line, j) => rows.push({ kind: "add", new: newLine + j, text: line }));
      newLine += text.length;
      added += text.length;
    } else {
      const first = i === 0;
      const last = i === changes.length - 1;
      const head = first ? 0 : CONTEXT;
      const tail = last ? 0 : CONTEXT;
      if (text.length > head + tail + 1) {
        text.slice(0, head).forEach((line, j) => rows.push({ kind: "same", old: oldLine + j, new: newLine + j, text: line }));
        rows.push({ kind: "gap", lines: text.length - head - tail });
        text.slice(text.length - tail).forEach((line, j) => {
          const k = text.length - tail + j;
          rows.push({ kind: "same", old: oldLine + k, new: newLine + k, text: line });
        });
      } else {
        text.forEach((line, j) => rows.push({ kind: "same", old: oldLine + j, new: newLine + j, text: line }));
      }
      oldLine += text.length;
      newLine += text.length;
    }
  }
  const max = LIMITS.browse.compareMaxShownLines;
  return { kind: "diff", rows: rows.slice(0, max), added, removed, truncated: rows.length > max };
}
