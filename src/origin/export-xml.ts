/**
 * A page's history in MediaWiki's XML export format, schema 0.11, written as
 * MediaWiki 1.39's XmlDumpWriter writes it (Special:Export, dumpBackup.php):
 * the same elements in the same order, the same indentation, `<text
 * deleted="deleted" />` and `<sha1/>` for a revision whose content is
 * hidden (`<contributor deleted="deleted" />` and `<comment deleted="deleted" />`
 * for a hidden contributor or comment), so importDump.php reads it as one of its own.
 * A revision whose text the archive never held is written as a hidden one,
 * also in a backup (there is nothing to hold), and an import stores it so again.
 *
 * What MediaWiki's schema has no place for goes into elements of our own
 * namespace (`urn:palimpsest:export:1`, prefix `palimpsest`), after a
 * revision's `<sha1>`: `<palimpsest:tag>` for each cache tag its writer set,
 * and, only in a backup (a `backup`-scope token), `<palimpsest:suppressed
 * bytes= sha1= xml:space="preserve">` holding a suppressed revision's
 * content. MediaWiki's importer skips revision elements it does not know
 * (WikiImporter: "Unhandled revision XML tag"), so it imports a backup's
 * suppressed revision as its own dumps show one, without the content;
 * `palimpsest import` restores both (src/tools/import/mediawiki-reader.ts).
 *
 * What the archive does not keep is not made up: `<page><id>` is the
 * wiki's page id when the page came from a wiki (an import, the follower),
 * and otherwise a stable id derived from the title (stablePageId); no `<minor/>`, a contributor's `<id>` is 0 (as
 * MediaWiki writes it for a name with no local account), and `<siteinfo>`
 * names no URL, so two copies of one archive export the same bytes
 * wherever they are served.
 *
 * Text is escaped as bytes, a bounded piece at a time, never decoded into a
 * string: `&`, `<`, `>` as entities, CR as `&#13;` (an XML parser turns a
 * raw CR into LF), and a character XML 1.0 cannot carry (a C0 control but
 * tab and line feed, U+FFFE, U+FFFF) as U+FFFD, as MediaWiki's own
 * cleanup does; such a revision's `sha1` then names the stored text, so an
 * import of it fails its check instead of storing other bytes.
 *
 * @example
 * const head = exportHead(); // <mediawiki …> and <siteinfo>
 * for (const chunk of revisionXml(revision, bytes, false)) write(chunk);
 */
import { CANONICAL_NAMESPACES } from "../page/namespace.ts";
import type { ExportedRevision } from "../page/export-types.ts";

export const PALIMPSEST_XMLNS = "urn:palimpsest:export:1";
/** What `<generator>` says: the format of these exports, not a software version, so backups compare across upgrades. */
export const EXPORT_GENERATOR = "Palimpsest export 1";

const encoder = new TextEncoder();

/**
 * Escapes character data (and attribute values: `"` too) as MediaWiki's Xml::element does, plus CR and XML-invalid
 * characters.
 */
export function escapeXml(s: string, attribute = false): string {
  return s.replace(/[&<>"\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, (ch) => {
    switch (ch) {
      case "&":
        return "&amp;";
      case "<":
        return "&lt;";
      case ">":
        return "&gt;";
      case '"':
        return attribute ? "&quot;" : '"';
      case "\r":
        return "&#13;";
      default:
        return "\ufffd";
    }
  });
}

/** `<name>value</name>`, or `<name />` for an empty value, as Xml::element writes them. */
function element(name: string, value: string): string {
  return value === "" ? `<${name} />` : `<${name}>${escapeXml(value)}</${name}>`;
}

/** The root element and `<siteinfo>`, as dumpBackup.php opens a dump. */
export function exportHead(): string {
  const namespaces = CANONICAL_NAMESPACES.map(([key, name]) => {
    const open = `<namespace key="${key}" case="first-letter"`;
    return `      ${name === "" ? `${open} />` : `${open}>${escapeXml(name)}</namespace>`}\n`;
  }).join("");
  return (
    `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:palimpsest="${PALIMPSEST_XMLNS}" xsi:schemaLocation="http://www.mediawiki.org/xml/export-0.11/ http://www.mediawiki.org/xml/export-0.11.xsd" version="0.11" xml:lang="en">\n` +
    `  <siteinfo>\n` +
    `    <sitename>Palimpsest</sitename>\n` +
    `    <generator>${EXPORT_GENERATOR}</generator>\n` +
    `    <case>first-letter</case>\n` +
    `    <namespaces>\n${namespaces}    </namespaces>\n` +
    `  </siteinfo>\n`
  );
}

export const EXPORT_TAIL = "</mediawiki>\n";

/** `<page>` up to its `<id>`: the wiki's page id when a write gave it, else {@link stablePageId}. */
export function pageHead(title: string, ns: number, id: number): string {
  return `  <page>\n    <title>${escapeXml(title)}</title>\n    <ns>${ns}</ns>\n    <id>${id}</id>\n`;
}

/**
 * A page id for a page no wiki numbered (written through the API): the first 48 bits of the SHA-256 of
 * its key, plus one. The same on every archive and every export, so a restore exports the same bytes;
 * MediaWiki's importer gives an imported page an id of its own whatever the file says.
 */
export async function stablePageId(key: string): Promise<number> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(key)));
  let n = 0;
  for (let i = 0; i < 6; i++) n = n * 256 + digest[i]!;
  return n + 1;
}

export const PAGE_TAIL = "  </page>\n";

/** Whether MediaWiki would take a name for an IP address (IPUtils::isValid): then it is written as `<ip>`. */
export function isIpAddress(name: string): boolean {
  const byte = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|0?[0-9]?[0-9])";
  if (new RegExp(`^(?:${byte}\\.){3}${byte}$`).test(name)) return true;
  if (!/^[0-9a-f:]+$/i.test(name) || !name.includes(":")) return false;
  const halves = name.split("::");
  if (halves.length > 2) return false;
  const groups = halves.map((h) => (h === "" ? [] : h.split(":")));
  if (groups.flat().some((g) => g.length < 1 || g.length > 4)) return false;
  const count = groups.flat().length;
  return halves.length === 2 ? count <= 7 : count === 8;
}

/**
 * `<contributor>`; a hidden one as XmlDumpWriter writes it (`<contributor deleted="deleted" />`), or, in
 * a backup, flagged so with its name still inside (the schema allows both; importDump.php reads the name).
 */
function contributorXml(name: string, hidden: boolean): string {
  const open = hidden ? `<contributor deleted="deleted"` : "<contributor";
  if (hidden && name === "") return `      ${open} />\n`;
  const inner = isIpAddress(name)
    ? `        ${element("ip", name)}\n`
    : `        ${element("username", name)}\n        <id>0</id>\n`;
  return `      ${open}>\n${inner}      </contributor>\n`;
}

/** `<comment>`, absent when empty; a hidden one as `<comment deleted="deleted" />`, or in a backup with its text. */
function commentXml(comment: string, hidden: boolean): string {
  if (!hidden) return comment === "" ? "" : `      <comment>${escapeXml(comment)}</comment>\n`;
  return comment === ""
    ? `      <comment deleted="deleted" />\n`
    : `      <comment deleted="deleted">${escapeXml(comment)}</comment>\n`;
}

/** In a backup only, before `</page>`: the page is deleted as MediaWiki deletes (restorable). */
export const PAGE_DELETED = "    <palimpsest:deleted />\n";

/** Bytes of text escaped per piece: a piece's output is at most 5 times this (every byte `&`). */
const ESCAPE_PIECE_BYTES = 64 * 1024;

/**
 * The bytes that need more than copying: & < > CR, C0 controls but tab and LF, and 0xEF (which may start U+FFFE or
 * U+FFFF).
 */
const SPECIAL = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) if (b !== 0x09 && b !== 0x0a) SPECIAL[b] = 1;
for (const b of [0x26, 0x3c, 0x3e, 0xef]) SPECIAL[b] = 1;

const REPLACEMENT = encoder.encode("\ufffd");
/** By byte: the entity it is written as, if it has one. */
const ENTITY_OF: Array<Uint8Array | undefined> = Array.from({ length: 256 }, () => undefined);
ENTITY_OF[0x26] = encoder.encode("&amp;");
ENTITY_OF[0x3c] = encoder.encode("&lt;");
ENTITY_OF[0x3e] = encoder.encode("&gt;");
ENTITY_OF[0x0d] = encoder.encode("&#13;");

/** `text` escaped as XML character data, in pieces of bounded size. */
export function* escapedText(text: Uint8Array): Generator<Uint8Array> {
  // One piece's output at most: every byte an entity of five.
  let scratch: Uint8Array | null = null;
  let start = 0;
  while (start < text.byteLength) {
    // A piece never ends inside a 3-byte sequence the escaping looks at.
    let end = Math.min(start + ESCAPE_PIECE_BYTES, text.byteLength);
    while (end < text.byteLength && end > start && (text[end]! & 0xc0) === 0x80) end++;
    let i = start;
    while (i < end && SPECIAL[text[i]!] === 0) i++;
    if (i === end) {
      yield text.subarray(start, end);
      start = end;
      continue;
    }
    const need = (end - start) * 5;
    if (!scratch || scratch.byteLength < need) scratch = new Uint8Array(need);
    const out = scratch;
    out.set(text.subarray(start, i), 0);
    let o = i - start;
    while (i < end) {
      const b = text[i]!;
      if (SPECIAL[b] === 0) {
        out[o++] = b;
        i++;
        continue;
      }
      const entity = ENTITY_OF[b];
      if (entity !== undefined) {
        for (let k = 0; k < entity.length; k++) out[o++] = entity[k]!;
        i++;
      } else if (b !== 0xef) {
        out.set(REPLACEMENT, o);
        o += REPLACEMENT.byteLength;
        i++;
      } else if (text[i + 1] === 0xbf && (text[i + 2] === 0xbe || text[i + 2] === 0xbf)) {
        // U+FFFE and U+FFFF are EF BF BE and EF BF BF.
        out.set(REPLACEMENT, o);
        o += REPLACEMENT.byteLength;
        i += 3;
      } else {
        out[o++] = b;
        i++;
      }
    }
    // A copy: the scratch is written again for the next piece.
    yield out.slice(0, o);
    start = end;
  }
}

/**
 * One `<revision>`: its content given when it is written (a visible
 * revision's; a suppressed one's only in a backup), null for a suppressed
 * revision whose content stays in the archive.
 */
export function* revisionXml(exported: ExportedRevision, content: Uint8Array | null): Generator<Uint8Array> {
  const r = exported.revision;
  let head = `    <revision>\n      <id>${r.id}</id>\n`;
  if (r.parentId !== null) head += `      <parentid>${r.parentId}</parentid>\n`;
  head += `      <timestamp>${r.timestamp}</timestamp>\n`;
  head += contributorXml(r.contributor, r.contributorHidden === true);
  head += commentXml(r.comment, r.commentHidden === true);
  head += `      <origin>${r.id}</origin>\n`;
  head += `      <model>${escapeXml(r.model)}</model>\n      <format>${escapeXml(r.format)}</format>\n`;
  const tags = r.tags.map((t) => `      <palimpsest:tag>${escapeXml(t)}</palimpsest:tag>\n`).join("");
  if (!r.suppressed && content !== null) {
    yield encoder.encode(`${head}      <text bytes="${r.bytes}" sha1="${r.sha1}" xml:space="preserve">`);
    yield* escapedText(content);
    yield encoder.encode(`</text>\n      <sha1>${r.sha1}</sha1>\n${tags}    </revision>\n`);
    return;
  }
  yield encoder.encode(`${head}      <text deleted="deleted" />\n      <sha1/>\n`);
  if (content !== null && "bytes" in r && r.suppressed) {
    yield encoder.encode(`      <palimpsest:suppressed bytes="${r.bytes}" sha1="${r.sha1}" xml:space="preserve">`);
    yield* escapedText(content);
    yield encoder.encode(`</palimpsest:suppressed>\n`);
  }
  yield encoder.encode(`${tags}    </revision>\n`);
}
