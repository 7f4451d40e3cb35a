/**
 * Page titles normalised as MediaWiki does for the main namespace: Unicode
 * NFC (so a title typed decomposed is the same page), underscores are
 * spaces, runs of spaces collapse, the ends are trimmed and the first letter
 * is upper-cased. URLs carry the underscore form.
 *
 * One rule with the wiki: the archive strips exactly the characters
 * MediaWiki strips (MediaWikiTitleCodec::splitTitleString: U+200E, U+200F,
 * U+202A–U+202E) and nothing else. A character MediaWiki keeps but that
 * draws nothing (the isolates U+2066–U+2069, ALM U+061C, U+200B, tag
 * characters, stray variation selectors...) is refused, never stripped:
 * stripping it would make two pages the wiki keeps apart (`Foo` and
 * `Foo` + U+2066) one page here, and let an editor of a followed wiki
 * write into another page's history. A refused title is skipped by name
 * by the importer and the follower (cleanName).
 *
 * @example
 * normalizeTitle("bip_0340")  // { ok: true, title: "Bip 0340", key: "Bip_0340" }
 */
import { LIMITS } from "../limits.ts";

export type TitleResult = { ok: true; title: string; key: string } | { ok: false; reason: string };

/**
 * The directional formatting characters MediaWiki strips from titles (LRM,
 * RLM, the embeddings and overrides), and only those: `Foo\u202Eoof` is
 * `Foooof` there and here, and cannot reorder what a history row shows.
 */
const DIRECTIONAL = /[\u200e\u200f\u202a-\u202e]/gu;
/**
 * Characters that draw nothing and join nothing: a name holding one is a
 * look-alike of the name without it. MediaWiki keeps them, so they are
 * refused here (never stripped: see the module's comment). ALM and the
 * isolates are directional controls MediaWiki does not strip; tag
 * characters (U+E0000–U+E007F) spell nothing outside emoji flags.
 */
const INVISIBLE = new RegExp(
  String.raw`[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}]`,
  "u",
);
/**
 * Variation selectors choose a glyph for the character before them. VS15
 * and VS16 (text or emoji presentation) are allowed after an emoji, where
 * they are how emoji are written; every other one, and these anywhere
 * else, changes nothing a reader sees and is refused.
 */
const VARIATION = /[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu;
const PRESENTATION = /[\ufe0e\ufe0f]/u;
const EMOJI = /\p{Extended_Pictographic}/u;
/**
 * ZWNJ and ZWJ are letters' business in Persian, Arabic and Indic scripts:
 * allowed between two letters that are not Latin, Greek or Cyrillic (where
 * they change nothing but the bytes), refused anywhere else.
 */
const JOINER = /\u200c|\u200d/gu;
const JOINS = /[\p{L}\p{M}]/u;
const NO_JOINS = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u;

/**
 * A name as people will see it (a title, a contributor): the directional
 * controls MediaWiki strips are stripped, invisible characters refused,
 * naming the code point.
 *
 * @example
 * cleanName("Mallory\u202Etxt.exe")  // { ok: true, value: "Mallorytxt.exe" }
 * cleanName("Admin\u200B")            // { ok: false, reason: "contains the invisible character U+200B" }
 */
export function cleanName(raw: string): { ok: true; value: string } | { ok: false; reason: string } {
  const value = raw.replace(DIRECTIONAL, "");
  const invisible = INVISIBLE.exec(value);
  if (invisible) return { ok: false, reason: `contains the invisible character ${codePoint(invisible[0])}` };
  for (const m of value.matchAll(VARIATION)) {
    const before = [...value.slice(0, m.index)].at(-1) ?? "";
    if (!PRESENTATION.test(m[0]) || !EMOJI.test(before))
      return {
        ok: false,
        reason: `contains the variation selector ${codePoint(m[0])}${PRESENTATION.test(m[0]) ? " after a character that is not an emoji" : ""}`,
      };
  }
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
