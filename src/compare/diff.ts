/**
 * Two revisions' texts compared line by line (Myers' diff, src/compare/myers.ts),
 * with one budget for the whole comparison, so no pair of revisions can hold
 * the isolate however its work is spread over lines:
 * - characters read: each text once (at most `compareMaxRevisionBytes`), and
 *   the changed lines whose words are marked, which are shown lines (at most
 *   `compareMaxShownChars` in all);
 * - steps of the diff, the line diff and every word diff together: at most
 *   `compareMaxWork`. Lines and words are interned to numbers first, so a
 *   step costs the same at any line length;
 * - what is shown: `compareMaxShownLines` rows, `compareMaxShownChars`
 *   characters.
 * Past the step budget the line diff answers "too big to compare"; word
 * marks are a nicety, so once the budget runs out the remaining changed
 * lines are shown without them. Unchanged runs fold to a few lines of context.
 *
 * The origin computes this once per pair of revisions (src/origin/compare.ts),
 * and the tiers keep the answer.
 *
 * @example
 * const result = compareTexts("a\nb\nc\n", "a\nB\nc\n", { before: 6, after: 6 });
 * // { kind: "diff", added: 1, removed: 1, rows: [same a, del b, add B, same c], truncated: false }
 */
import { LIMITS, type LimitName } from "../limits.ts";
import { diffIds, type StepBudget } from "./myers.ts";

/** Unchanged lines kept on each side of a change. */
const CONTEXT = 3;
/** Most words inserted plus deleted on one line before its change is shown as a whole line. */
const MAX_WORD_EDITS = 200;
/** Letters, digits and Latin diacritics: what a word is made of (jsdiff's `diffWordsWithSpace` set). */
const WORD_CHARS =
  "a-zA-Z0-9_\\u{AD}\\u{C0}-\\u{D6}\\u{D8}-\\u{F6}\\u{F8}-\\u{2C6}\\u{2C8}-\\u{2D7}\\u{2DE}-\\u{2FF}\\u{1E00}-\\u{1EFF}";
/** A line's tokens: words, runs of spaces, and any other character alone. Compiled once, not per line. */
const WORD_TOKENS = new RegExp(`[${WORD_CHARS}]+|\\s+|[^${WORD_CHARS}]`, "gu");

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

/** One of the two revisions compared. */
export interface RevisionSide {
  id: number;
  bytes: number;
  /** When the revision was made, "YYYY-MM-DD hh:mm:ss UTC". */
  timestamp: string | null;
}

/** What the origin answers for a pair of revisions, as JSON, and every tier keeps (src/origin/compare.ts). */
export interface CompareAnswer {
  from: RevisionSide;
  to: RevisionSide;
  result: Comparison | { kind: "not_text"; detail: string };
}

/** A revision as the comparison needs it: its bytes and the media type it is served as. */
export interface ComparedRevision {
  id: number;
  body: Uint8Array;
  contentType: string;
  /** ISO 8601. */
  timestamp: string;
}

/** Text a person can read line by line; anything else is not compared. */
function isText(contentType: string): boolean {
  return /^(text\/|application\/(json|xml|javascript)|[^;]*\+(json|xml))/i.test(contentType);
}

function sideOf(r: ComparedRevision): RevisionSide {
  const at = new Date(r.timestamp);
  return {
    id: r.id,
    bytes: r.body.byteLength,
    timestamp: Number.isNaN(at.getTime())
      ? null
      : at
          .toISOString()
          .replace("T", " ")
          .replace(/\.\d{3}Z$/, " UTC"),
  };
}

/** Compares two revisions' bodies, when both are UTF-8 text. */
export function compareRevisions(a: ComparedRevision, b: ComparedRevision): CompareAnswer {
  const [from, to] = [sideOf(a), sideOf(b)];
  if (!isText(a.contentType) || !isText(b.contentType)) {
    return {
      from,
      to,
      result: { kind: "not_text", detail: "These revisions are not text, so they are not compared line by line." },
    };
  }
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const max = LIMITS.browse.compareMaxRevisionBytes;
  try {
    // Over the size bound compareTexts answers "too big" from the sizes alone: no need to decode.
    const before = from.bytes > max ? "" : decoder.decode(a.body);
    const after = to.bytes > max ? "" : decoder.decode(b.body);
    return { from, to, result: compareTexts(before, after, { before: from.bytes, after: to.bytes }) };
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    return {
      from,
      to,
      result: {
        kind: "not_text",
        detail: "A revision is not valid UTF-8 text, so they are not compared line by line.",
      },
    };
  }
}

/** Tokens as small numbers: equal text, equal number. */
class Interner {
  readonly #ids = new Map<string, number>();

  ids(tokens: readonly string[]): Int32Array {
    const out = new Int32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      let id = this.#ids.get(tokens[i]!);
      if (id === undefined) this.#ids.set(tokens[i]!, (id = this.#ids.size));
      out[i] = id;
    }
    return out;
  }
}

/** Lines with their newline, so a last line without one differs from the same line with it. */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", start)) {
    lines.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") || text === "" ? n : n + 1;
}

const shown = (line: string) => (line.endsWith("\n") ? line.slice(0, -1) : line);

/**
 * Marks the words that differ between a removed line and the line that
 * replaced it; undefined when they differ in too many words, "spent" when
 * the budget cannot pay for it.
 */
function wordParts(
  before: string,
  after: string,
  words: Interner,
  budget: StepBudget,
): { before: Part[]; after: Part[] } | undefined | "spent" {
  const oldTokens = before.match(WORD_TOKENS) ?? [];
  const newTokens = after.match(WORD_TOKENS) ?? [];
  const changes = diffIds(words.ids(oldTokens), words.ids(newTokens), MAX_WORD_EDITS, budget);
  if (changes === undefined || changes === "spent") return changes;
  const parts = { before: [] as Part[], after: [] as Part[] };
  let [o, n] = [0, 0];
  for (const change of changes) {
    if (!change.added) {
      parts.before.push({ text: oldTokens.slice(o, o + change.count).join(""), changed: !!change.removed });
      o += change.count;
    }
    if (!change.removed) {
      parts.after.push({ text: newTokens.slice(n, n + change.count).join(""), changed: !!change.added });
      n += change.count;
    }
  }
  return parts;
}

/** Rows as shown, up to `compareMaxShownLines` rows and `compareMaxShownChars` characters of text. */
class ShownRows {
  readonly rows: Row[] = [];
  /** Indexes of a removed row and the added row that replaced it, both shown whole. */
  readonly pairs: Array<[number, number]> = [];
  truncated = false;
  #chars = 0;

  /**
   * Adds the row if it fits whole (true); otherwise its text cut to what is left, or nothing, and false from then on.
   */
  push(row: Row): boolean {
    if (this.truncated) return false;
    if (this.rows.length >= LIMITS.browse.compareMaxShownLines) return !(this.truncated = true);
    if (row.kind !== "gap") {
      const left = LIMITS.browse.compareMaxShownChars - this.#chars;
      if (left <= 0) return !(this.truncated = true);
      if (row.text.length > left) {
        this.rows.push({ ...row, text: row.text.slice(0, left) });
        this.#chars += left;
        this.truncated = true;
        return false;
      }
      this.#chars += row.text.length;
    }
    this.rows.push(row);
    return true;
  }
}

export function compareTexts(before: string, after: string, bytes: { before: number; after: number }): Comparison {
  const maxBytes = LIMITS.browse.compareMaxRevisionBytes;
  if (bytes.before > maxBytes || bytes.after > maxBytes) {
    return {
      kind: "too_big",
      limit: "browse.compareMaxRevisionBytes",
      detail: `A revision is ${Math.max(bytes.before, bytes.after)} bytes; pages compare revisions up to ${maxBytes} bytes.`,
    };
  }
  const maxLines = LIMITS.browse.compareMaxLines;
  const lines = Math.max(lineCount(before), lineCount(after));
  if (lines > maxLines) {
    return {
      kind: "too_big",
      limit: "browse.compareMaxLines",
      detail: `A revision has ${lines} lines; pages compare revisions of up to ${maxLines} lines.`,
    };
  }
  const budget: StepBudget = { steps: LIMITS.browse.compareMaxWork };
  const [oldLines, newLines] = [splitLines(before), splitLines(after)];
  const lineIds = new Interner();
  const changes = diffIds(lineIds.ids(oldLines), lineIds.ids(newLines), LIMITS.browse.compareMaxEditLength, budget);
  if (changes === "spent") {
    return {
      kind: "too_big",
      limit: "browse.compareMaxWork",
      detail: `Comparing these revisions line by line takes more than the ${LIMITS.browse.compareMaxWork} steps a page may spend.`,
    };
  }
  if (!changes) {
    return {
      kind: "too_big",
      limit: "browse.compareMaxEditLength",
      detail: `The revisions differ in more than ${LIMITS.browse.compareMaxEditLength} lines; pages show differences up to that many.`,
    };
  }

  const out = new ShownRows();
  let [oldLine, newLine, added, removed] = [1, 1, 0, 0];
  const oldText = (j: number) => shown(oldLines[oldLine - 1 + j]!);
  const newText = (j: number) => shown(newLines[newLine - 1 + j]!);
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    const count = change.count;
    if (change.removed) {
      const next = changes[i + 1];
      const replaced = next?.added ? next.count : 0;
      const dels = Array.from(
        { length: count },
        (_, j) => out.push({ kind: "del", old: oldLine + j, text: oldText(j) }) && out.rows.length - 1,
      );
      for (let j = 0; j < replaced; j++) {
        const at = out.push({ kind: "add", new: newLine + j, text: newText(j) }) && out.rows.length - 1;
        const del = dels[j];
        if (at !== false && del !== undefined && del !== false) out.pairs.push([del, at]);
      }
      oldLine += count;
      newLine += replaced;
      removed += count;
      added += replaced;
      if (next?.added) i++;
    } else if (change.added) {
      for (let j = 0; j < count; j++) out.push({ kind: "add", new: newLine + j, text: newText(j) });
      newLine += count;
      added += count;
    } else {
      const head = i === 0 ? 0 : CONTEXT;
      const tail = i === changes.length - 1 ? 0 : CONTEXT;
      const same = (j: number): Row => ({ kind: "same", old: oldLine + j, new: newLine + j, text: newText(j) });
      if (count > head + tail + 1) {
        for (let j = 0; j < head; j++) out.push(same(j));
        out.push({ kind: "gap", lines: count - head - tail });
        for (let j = count - tail; j < count; j++) out.push(same(j));
      } else {
        for (let j = 0; j < count; j++) out.push(same(j));
      }
      oldLine += count;
      newLine += count;
    }
  }

  // Words are marked only on lines shown whole, for as long as the budget lasts.
  const words = new Interner();
  for (const [d, a] of out.pairs) {
    const del = out.rows[d] as Extract<Row, { kind: "del" }>;
    const add = out.rows[a] as Extract<Row, { kind: "add" }>;
    const parts = wordParts(del.text, add.text, words, budget);
    if (parts === "spent") break;
    if (parts) [del.parts, add.parts] = [parts.before, parts.after];
  }
  return { kind: "diff", rows: out.rows, added, removed, truncated: out.truncated };
}
