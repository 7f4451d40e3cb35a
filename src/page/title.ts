/**
 * Page titles normalised as MediaWiki does for the main namespace: Unicode
 * NFC (so a title typed decomposed is the same page), underscores are
 * spaces, runs of spaces collapse, the ends are trimmed and the first letter
 * is upper-cased. URLs carry the underscore form. Directional controls are
 * stripped and invisible characters refused (cleanName), so no two titles
 * look the same and none can reorder the text around it.
 *
 * @example
 * normalizeTitle("bip_0340")  // { ok: true, title: "Bip 0340", key: "Bip_0340" }
 */
import { LIMITS } from "../limits.ts";

export type TitleResult = { ok: true; title: string; key: string } | { ok: false; reason: string };

/**
 * Directional formatting characters (LRM, RLM, the embeddings and
 * overrides, the isolates, ALM): MediaWiki strips them from titles, so
 * `Foo\u202Eoof` is `Foooof` and cannot reorder what a history row shows.
 */
const DIRECTIONAL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
/** Characters that draw nothing and join nothing: a name holding one is a look-alike of the name without it. */
const INVISIBLE = /[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b\u2060-\u2064\u206a-\u206f\u3164\ufeff\uffa0]/u;
/**
 * ZWNJ and ZWJ are letters' business in Persian, Arabic and Indic scripts:
 * allowed between two letters that are not Latin, Greek or Cyrillic (where
 * they change nothing but the bytes), refused anywhere else.
 */
const JOINER = /\u200c|\u200d/gu;
const JOINS = /[\p{L}\p{M}]/u;
const NO_JOINS = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u;

/**
 * A name as people will see it (a title, a contributor): directional
 * controls stripped, invisible characters refused, naming the code point.
 *
 * @example
 * cleanName("Mallory\u202Etxt.exe")  // { ok: true, value: "Mallorytxt.exe" }
 * cleanName("Admin\u200B")            // { ok: false, reason: "contains the invisible character U+200B" }
 */
export function cleanName(raw: string): { ok: true; value: string } | { ok: false; reason: string } {
  const value = raw.replace(DIRECTIONAL, "");
  const invisible = INVISIBLE.exec(value);
  if (invisible) return { ok: false, reason: `contains the invisible character ${codePoint(invisible[0])}` };
  for (const m of value.matchAll(JOINER)) {
    const before = [...value.slice(0, m.index)].at(-1) ?? "";
    const after = [...value.slice(m.index + 1)][0] ?? "";
    const joins = (ch: string) => JOINS.test(ch) && !NO_JOINS.test(ch);
    if (!joins(before) || !joins(after))
      return {
        ok: false,
        reason: `contains the invisible character ${codePoint(m[0])} outside a script that joins with it`,
      };
  }
  return { ok: true, value };
}

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

// MediaWiki's $wgLegalTitleChars excludes these, plus controls and U+FFFD.
const ILLEGAL = /[#<>[\]|{}\u0000-\u001f\u007f\ufffd]/u;

export function normalizeTitle(raw: string): TitleResult {
  const clean = cleanName(raw.normalize("NFC"));
  if (!clean.ok) return { ok: false, reason: `title ${clean.reason}` };
  let title = clean.value
    .replace(/_/g, " ")
    .replace(/[ \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/gu, " ")
    .trim();
  if (title.length === 0) return { ok: false, reason: "title is empty" };
  const bad = ILLEGAL.exec(title);
  if (bad) return { ok: false, reason: `title contains the illegal character ${JSON.stringify(bad[0])}` };
  if (/(^|\/)\.\.?(\/|$)/.test(title) || title.includes("%")) {
    return { ok: false, reason: "title contains a relative path segment or a percent sign" };
  }
  const first = String.fromCodePoint(title.codePointAt(0)!);
  title = first.toUpperCase() + title.slice(first.length);
  if (new TextEncoder().encode(title).byteLength > LIMITS.page.maxTitleBytes) {
    return { ok: false, reason: `title exceeds page.maxTitleBytes (${LIMITS.page.maxTitleBytes} bytes of UTF-8)` };
  }
  return { ok: true, title, key: title.replace(/ /g, "_") };
}
