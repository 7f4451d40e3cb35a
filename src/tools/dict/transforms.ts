/**
 * brotli's 121 word transforms (RFC 7932 Appendix B), by transform id: the
 * prefix written before the word, what is done to the word, and the suffix
 * after it. A static-dictionary reference names a word and one of these; a
 * reduced table (src/codec/dict/table-format.ts) lists the (word, transform) pairs an
 * encoder may use. Generated once from the pinned upstream
 * `c/common/transform.c` (the RFC's table is normative and never changes),
 * so the trainer can name the transforms it reports.
 *
 * @example
 * TRANSFORMS[21]; // ["", "identity", "\">"]
 * describeTransform(21); // 'word + "\\">"'
 */
import { DICTIONARY_TRANSFORMS } from "../../codec/brotli/reduced-dictionary.ts";

export type TransformKind =
  | "identity"
  | "uppercase-first"
  | "uppercase-all"
  | `omit-first-${1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9}`
  | `omit-last-${1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9}`;

export type Transform = readonly [prefix: string, kind: TransformKind, suffix: string];

export const TRANSFORMS: readonly Transform[] = [
  ["", "identity", ""], // 0
  ["", "identity", " "], // 1
  [" ", "identity", " "], // 2
  ["", "omit-first-1", ""], // 3
  ["", "uppercase-first", " "], // 4
  ["", "identity", " the "], // 5
  [" ", "identity", ""], // 6
  ["s ", "identity", " "], // 7
  ["", "identity", " of "], // 8
  ["", "uppercase-first", ""], // 9
  ["", "identity", " and "], // 10
  ["", "omit-first-2", ""], // 11
  ["", "omit-last-1", ""], // 12
  [", ", "identity", " "], // 13
  ["", "identity", ", "], // 14
  [" ", "uppercase-first", " "], // 15
  ["", "identity", " in "], // 16
  ["", "identity", " to "], // 17
  ["e ", "identity", " "], // 18
  ["", "identity", '"'], // 19
  ["", "identity", "."], // 20
  ["", "identity", '">'], // 21
  ["", "identity", "\n"], // 22
  ["", "omit-last-3", ""], // 23
  ["", "identity", "]"], // 24
  ["", "identity", " for "], // 25
  ["", "omit-first-3", ""], // 26
  ["", "omit-last-2", ""], // 27
  ["", "identity", " a "], // 28
  ["", "identity", " that "], // 29
  [" ", "uppercase-first", ""], // 30
  ["", "identity", ". "], // 31
  [".", "identity", ""], // 32
  [" ", "identity", ", "], // 33
  ["", "omit-first-4", ""], // 34
  ["", "identity", " with "], // 35
  ["", "identity", "'"], // 36
  ["", "identity", " from "], // 37
  ["", "identity", " by "], // 38
  ["", "omit-first-5", ""], // 39
  ["", "omit-first-6", ""], // 40
  [" the ", "identity", ""], // 41
  ["", "omit-last-4", ""], // 42
  ["", "identity", ". The "], // 43
  ["", "uppercase-all", ""], // 44
  ["", "identity", " on "], // 45
  ["", "identity", " as "], // 46
  ["", "identity", " is "], // 47
  ["", "omit-last-7", ""], // 48
  ["", "omit-last-1", "ing "], // 49
  ["", "identity", "\n\t"], // 50
  ["", "identity", ":"], // 51
  [" ", "identity", ". "], // 52
  ["", "identity", "ed "], // 53
  ["", "omit-first-9", ""], // 54
  ["", "omit-first-7", ""], // 55
  ["", "omit-last-6", ""], // 56
  ["", "identity", "("], // 57
  ["", "uppercase-first", ", "], // 58
  ["", "omit-last-8", ""], // 59
  ["", "identity", " at "], // 60
  ["", "identity", "ly "], // 61
  [" the ", "identity", " of "], // 62
  ["", "omit-last-5", ""], // 63
  ["", "omit-last-9", ""], // 64
  [" ", "uppercase-first", ", "], // 65
  ["", "uppercase-first", '"'], // 66
  [".", "identity", "("], // 67
  ["", "uppercase-all", " "], // 68
  ["", "uppercase-first", '">'], // 69
  ["", "identity", '="'], // 70
  [" ", "identity", "."], // 71
  [".com/", "identity", ""], // 72
  [" the ", "identity", " of the "], // 73
  ["", "uppercase-first", "'"], // 74
  ["", "identity", ". This "], // 75
  ["", "identity", ","], // 76
  [".", "identity", " "], // 77
  ["", "uppercase-first", "("], // 78
  ["", "uppercase-first", "."], // 79
  ["", "identity", " not "], // 80
  [" ", "identity", '="'], // 81
  ["", "identity", "er "], // 82
  [" ", "uppercase-all", " "], // 83
  ["", "identity", "al "], // 84
  [" ", "uppercase-all", ""], // 85
  ["", "identity", "='"], // 86
  ["", "uppercase-all", '"'], // 87
  ["", "uppercase-first", ". "], // 88
  [" ", "identity", "("], // 89
  ["", "identity", "ful "], // 90
  [" ", "uppercase-first", ". "], // 91
  ["", "identity", "ive "], // 92
  ["", "identity", "less "], // 93
  ["", "uppercase-all", "'"], // 94
  ["", "identity", "est "], // 95
  [" ", "uppercase-first", "."], // 96
  ["", "uppercase-all", '">'], // 97
  [" ", "identity", "='"], // 98
  ["", "uppercase-first", ","], // 99
  ["", "identity", "ize "], // 100
  ["", "uppercase-all", "."], // 101
  ["\u00a0", "identity", ""], // 102
  [" ", "identity", ","], // 103
  ["", "uppercase-first", '="'], // 104
  ["", "uppercase-all", '="'], // 105
  ["", "identity", "ous "], // 106
  ["", "uppercase-all", ", "], // 107
  ["", "uppercase-first", "='"], // 108
  [" ", "uppercase-first", ","], // 109
  [" ", "uppercase-all", '="'], // 110
  [" ", "uppercase-all", ", "], // 111
  ["", "uppercase-all", ","], // 112
  ["", "uppercase-all", "("], // 113
  ["", "uppercase-all", ". "], // 114
  [" ", "uppercase-all", "."], // 115
  ["", "uppercase-all", "='"], // 116
  [" ", "uppercase-all", ". "], // 117
  [" ", "uppercase-first", '="'], // 118
  [" ", "uppercase-all", "='"], // 119
  [" ", "uppercase-first", "='"], // 120
];

/** How many transforms RFC 7932 defines: ids run 0..120. */
export const TRANSFORM_COUNT = DICTIONARY_TRANSFORMS;

/** A transform for a human: `" " + Upper(word) + "=\""`. */
export function describeTransform(id: number): string {
  const t = TRANSFORMS[id];
  if (t === undefined) throw new RangeError(`no brotli transform ${id} (ids are 0..${TRANSFORM_COUNT - 1})`);
  const [prefix, kind, suffix] = t;
  const word =
    kind === "identity"
      ? "word"
      : kind === "uppercase-first"
        ? "Upper1(word)"
        : kind === "uppercase-all"
          ? "UPPER(word)"
          : `${kind}(word)`;
  return [prefix && JSON.stringify(prefix), word, suffix && JSON.stringify(suffix)].filter(Boolean).join(" + ");
}
