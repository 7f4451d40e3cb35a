/**
 * A structural scan of JSON bytes as they arrive, before anything parses
 * them. `JSON.parse` builds every object and array it reads: 24 MiB of `{}`
 * is twelve million objects, and 24 MiB of `[` nests twelve million deep, for
 * seconds of CPU and a gigabyte of heap before a route could count them. The
 * scanner keeps a few numbers per byte instead (string-aware, so brackets
 * inside strings are text), and says as soon as a body passes a bound:
 *
 * - more containers open at once than `maxDepth`;
 * - more values of any kind than `maxValues`;
 * - more elements than allowed in an array named by a top-level key
 *   (`{"revisions": [...]}`), counted element by element.
 *
 * It validates nothing else: a body it passes is parsed next, and JSON.parse
 * refuses what is malformed. Its counts are exact for well-formed JSON, and
 * so for any prefix JSON.parse accepts before it finds an error; a passed
 * body therefore never makes JSON.parse build more than the bounds allow.
 *
 * @example
 * ```ts
 * const scan = new JsonScanner({ maxDepth: 16, maxValues: 10_000, arrays: { revisions: 500 } });
 * for await (const chunk of body) {
 *   const refusal = scan.push(chunk);
 *   if (refusal) throw new Error(refusal.kind); // "depth" | "values" | "array"
 * }
 * ```
 */

export interface JsonBounds {
  /** Most containers (objects and arrays) open at once. */
  maxDepth: number;
  /** Most values of any kind (objects, arrays, strings, numbers, literals) in the whole body. */
  maxValues: number;
  /** Most elements of the array that a top-level object's key names, by key. */
  arrays?: Readonly<Record<string, number>>;
}

/** Why a body was refused, and where: `offset` is the byte that crossed the bound. */
export type JsonScanRefusal =
  | { kind: "depth"; offset: number }
  | { kind: "values"; offset: number }
  | { kind: "array"; key: string; offset: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OBJECT = 1;
const ARRAY = 2;
/** Longest top-level key, in bytes as sent (escapes included), read to compare with `arrays`. */
const MAX_KEY_BYTES = 128;

export class JsonScanner {
  readonly #bounds: JsonBounds;
  /** The open containers, innermost last: OBJECT or ARRAY. */
  readonly #stack: Uint8Array;
  #depth = 0;
  #values = 0;
  /** Bytes scanned before the current chunk. */
  #offset = 0;
  #inString = false;
  /** Inside a string, the previous byte was a backslash that escapes the next one. */
  #escaped = false;
  #inScalar = false;
  /** In an object, the next string is a key (after `{` or `,`), not a value (after `:`). */
  #expectKey = false;
  /** The current string is a key of the top-level object: its bytes are kept to compare. */
  #keyBytes: number[] | null = null;
  /** The key of the top-level object whose value comes next. */
  #lastKey: string | null = null;
  /** The counted array: its depth, key, limit and elements so far. */
  #tracked: { depth: number; key: string; limit: number; count: number } | null = null;

  constructor(bounds: JsonBounds) {
    this.#bounds = bounds;
    this.#stack = new Uint8Array(bounds.maxDepth + 1);
  }

  /** Scans the next bytes; a refusal once a bound is passed (scan no further then). */
  push(bytes: Uint8Array): JsonScanRefusal | null {
    const n = bytes.length;
    let i = 0;
    while (i < n) {
      if (this.#inString) {
        const end = this.#skipString(bytes, i);
        if (end < 0) break;
        i = end;
        continue;
      }
      const b = bytes[i]!;
      switch (b) {
        case 0x20:
        case 0x09:
        case 0x0a:
        case 0x0d:
          this.#inScalar = false;
          break;
        case 0x7b: // {
        case 0x5b: {
          // [
          const refusal = this.#value(i) ?? this.#open(b === 0x7b ? OBJECT : ARRAY, i);
          if (refusal) return refusal;
          break;
        }
        case 0x7d: // }
        case 0x5d: // ]
          this.#inScalar = false;
          if (this.#depth > 0) this.#depth--;
          if (this.#tracked && this.#depth < this.#tracked.depth) this.#tracked = null;
          this.#expectKey = false;
          break;
        case QUOTE: {
          this.#inScalar = false;
          this.#inString = true;
          this.#escaped = false;
          if (this.#depth > 0 && this.#stack[this.#depth - 1] === OBJECT && this.#expectKey) {
            this.#keyBytes = this.#depth === 1 && this.#bounds.arrays ? [] : null;
          } else {
            const refusal = this.#value(i);
            if (refusal) return refusal;
          }
          i++;
          continue;
        }
        case 0x3a: // :
          this.#inScalar = false;
          this.#expectKey = false;
          break;
        case 0x2c: // ,
          this.#inScalar = false;
          this.#expectKey = this.#depth > 0 && this.#stack[this.#depth - 1] === OBJECT;
          break;
        default:
          // A number or a literal (true, false, null): one value, however many bytes.
          if (!this.#inScalar) {
            const refusal = this.#value(i);
            if (refusal) return refusal;
            this.#inScalar = true;
          }
      }
      i++;
    }
    this.#offset += n;
    return null;
  }

  /** A value starts at `i`: count it, and count it as an element of the tracked array. */
  #value(i: number): JsonScanRefusal | null {
    if (++this.#values > this.#bounds.maxValues) return { kind: "values", offset: this.#offset + i };
    const tracked = this.#tracked;
    if (tracked && this.#depth === tracked.depth && ++tracked.count > tracked.limit)
      return { kind: "array", key: tracked.key, offset: this.#offset + i };
    return null;
  }

  #open(kind: number, i: number): JsonScanRefusal | null {
    this.#inScalar = false;
    if (this.#depth >= this.#bounds.maxDepth) return { kind: "depth", offset: this.#offset + i };
    if (kind === ARRAY && this.#depth === 1 && this.#stack[0] === OBJECT && this.#lastKey !== null) {
      const limit = this.#bounds.arrays?.[this.#lastKey];
      if (limit !== undefined && Object.hasOwn(this.#bounds.arrays!, this.#lastKey))
        this.#tracked = { depth: 2, key: this.#lastKey, limit, count: 0 };
    }
    this.#stack[this.#depth++] = kind;
    this.#expectKey = kind === OBJECT;
    return null;
  }

  /**
   * Inside a string from `i`: the index after its closing quote, or -1 when
   * it runs past this chunk. Finds quotes with indexOf (texts are most of a
   * write's bytes); a quote is escaped when an odd run of backslashes ends
   * just before it.
   */
  #skipString(bytes: Uint8Array, i: number): number {
    const n = bytes.length;
    let from = i;
    if (this.#escaped) {
      this.#escaped = false;
      from = i + 1;
    }
    for (;;) {
      const q = from < n ? bytes.indexOf(QUOTE, from) : -1;
      const stop = q < 0 ? n : q;
      let run = 0;
      while (stop - 1 - run >= from && bytes[stop - 1 - run] === BACKSLASH) run++;
      if (q < 0) {
        this.#escaped = run % 2 === 1;
        this.#keep(bytes, i, n);
        return -1;
      }
      if (run % 2 === 1) {
        from = q + 1;
        continue;
      }
      this.#keep(bytes, i, q);
      this.#inString = false;
      if (this.#keyBytes) {
        this.#lastKey = keyOf(this.#keyBytes);
        this.#keyBytes = null;
      } else if (this.#depth === 1 && this.#expectKey) {
        this.#lastKey = null;
      }
      return q + 1;
    }
  }

  /** Keeps a top-level key's bytes, up to MAX_KEY_BYTES (no key we count is longer). */
  #keep(bytes: Uint8Array, from: number, to: number): void {
    const key = this.#keyBytes;
    if (!key) return;
    for (let j = from; j < to && key.length <= MAX_KEY_BYTES; j++) key.push(bytes[j]!);
  }
}

/** A key as JSON.parse would read it (escapes decoded), or null when too long or not a string. */
function keyOf(raw: number[]): string | null {
  if (raw.length > MAX_KEY_BYTES) return null;
  const text = String.fromCharCode(...raw);
  if (!text.includes("\\")) return text;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return null;
  }
}
