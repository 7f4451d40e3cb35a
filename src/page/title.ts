/**
 * Page titles normalised as MediaWiki does for the main namespace: Unicode
 * NFC (so a title typed decomposed is the same page), underscores are
 * spaces, runs of spaces collapse, the ends are trimmed and the first letter
 * is upper-cased. URLs carry the underscore form.
 *
 * @example
 * normalizeTitle("bip_0340")  // { ok: true, title: "Bip 0340", key: "Bip_0340" }
 */
import { LIMITS } from "../limits.ts";

export type TitleResult = { ok: true; title: string; key: string } | { ok: false; reason: string };

// MediaWiki's $wgLegalTitleChars excludes these, plus controls and U+FFFD.
const ILLEGAL = /[#<>[\]|{}\u0000-\u001f\u007f\ufffd]/u;

export function normalizeTitle(raw: string): TitleResult {
  let title = raw.normalize("NFC").replace(/_/g, " ").replace(/[ \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/gu, " ").trim();
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
