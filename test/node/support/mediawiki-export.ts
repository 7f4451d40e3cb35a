/**
 * Builds MediaWiki XML exports (schema 0.10 / 0.11) for tests, escaping text
 * the way MediaWiki does plus `&#13;` for carriage returns (which a parser
 * would otherwise normalise to line feeds).
 *
 * @example
 * const xml = exportXml({ pages: [{ title: "Sandbox", revisions: [{ id: 1, text: "hello" }] }] });
 */
import { createHash } from "node:crypto";

export interface ExportRevisionInput {
  id?: number | string | null;
  parentId?: number | null;
  timestamp?: string | null;
  /** `{ username }` (with an optional user id) or `{ ip }`; null leaves <contributor> out. */
  contributor?: { username: string; userId?: number } | { ip: string } | null;
  comment?: string | null;
  model?: string | null;
  format?: string | null;
  /** null leaves <text> out. */
  text?: string | null;
  /** true: the correct MediaWiki base-36 SHA-1; a string: that value; false: no <sha1>. */
  sha1?: boolean | string;
  /** true: the correct UTF-8 length as `bytes=`; a number: that value; false: none. */
  bytes?: boolean | number;
  /** Raw XML appended inside <revision> (for odd cases). */
  extra?: string;
}

export interface ExportPageInput {
  title: string | null;
  pageId?: number;
  revisions: ExportRevisionInput[];
}

export interface ExportInput {
  /** "0.10" or "0.11", or any other string a test hands over to see it refused. */
  version?: string;
  pages: ExportPageInput[];
  /** An `<?xml ... ?>` declaration to put first, if any. */
  declaration?: string;
}

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/\r/g, "&#13;");
}

/** MediaWiki's SHA-1 form: base 36, lower case, zero-padded to 31 digits. */
export function mediaWikiSha1(data: string | Uint8Array): string {
  const hex = createHash("sha1").update(data).digest("hex");
  return BigInt(`0x${hex}`).toString(36).padStart(31, "0");
}

function revisionXml(rev: ExportRevisionInput, version: string): string {
  const lines = ["    <revision>"];
  if (rev.id !== null && rev.id !== undefined) lines.push(`      <id>${rev.id}</id>`);
  if (rev.parentId) lines.push(`      <parentid>${rev.parentId}</parentid>`);
  if (rev.timestamp !== null) lines.push(`      <timestamp>${rev.timestamp ?? "2020-01-01T00:00:00Z"}</timestamp>`);
  const who = rev.contributor === undefined ? { username: "Example", userId: 7 } : rev.contributor;
  if (who !== null) {
    if ("ip" in who) lines.push("      <contributor>", `        <ip>${escapeXml(who.ip)}</ip>`, "      </contributor>");
    else
      lines.push(
        "      <contributor>",
        `        <username>${escapeXml(who.username)}</username>`,
        `        <id>${who.userId ?? 1}</id>`,
        "      </contributor>",
      );
  }
  if (rev.comment !== null && rev.comment !== undefined)
    lines.push(`      <comment>${escapeXml(rev.comment)}</comment>`);
  if (version === "0.11" && rev.id !== null && rev.id !== undefined) lines.push(`      <origin>${rev.id}</origin>`);
  if (rev.model !== null) lines.push(`      <model>${rev.model ?? "wikitext"}</model>`);
  if (rev.format !== null) lines.push(`      <format>${rev.format ?? "text/x-wiki"}</format>`);
  const text = rev.text === undefined ? "" : rev.text;
  const sha1 =
    rev.sha1 === undefined || rev.sha1 === true
      ? text === null
        ? null
        : mediaWikiSha1(text)
      : rev.sha1 === false
        ? null
        : rev.sha1;
  if (text !== null) {
    const bytes =
      rev.bytes === undefined || rev.bytes === true ? Buffer.byteLength(text) : rev.bytes === false ? null : rev.bytes;
    const attrs = [
      bytes === null ? "" : ` bytes="${bytes}"`,
      version === "0.11" && sha1 ? ` sha1="${sha1}"` : "",
      ' xml:space="preserve"',
    ].join("");
    lines.push(`      <text${attrs}>${escapeXml(text)}</text>`);
  }
  if (sha1) lines.push(`      <sha1>${sha1}</sha1>`);
  if (rev.extra) lines.push(rev.extra);
  lines.push("    </revision>");
  return lines.join("\n");
}

export function exportXml(input: ExportInput): string {
  const version = input.version ?? "0.11";
  const out: string[] = [];
  if (input.declaration) out.push(input.declaration);
  out.push(
    `<mediawiki xmlns="http://www.mediawiki.org/xml/export-${version}/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="${version}" xml:lang="en">`,
    "  <siteinfo>",
    "    <sitename>Test wiki</sitename>",
    "    <case>first-letter</case>",
    "    <namespaces>",
    '      <namespace key="0" case="first-letter" />',
    "    </namespaces>",
    "  </siteinfo>",
  );
  input.pages.forEach((page, i) => {
    out.push("  <page>");
    if (page.title !== null) out.push(`    <title>${escapeXml(page.title)}</title>`);
    out.push("    <ns>0</ns>", `    <id>${page.pageId ?? i + 1}</id>`);
    for (const rev of page.revisions) out.push(revisionXml(rev, version));
    out.push("  </page>");
  });
  out.push("</mediawiki>", "");
  return out.join("\n");
}

export interface GeneratedRevision {
  id: number;
  parentId: number | null;
  timestamp: string;
  contributor: { username: string; userId: number } | { ip: string };
  comment: string;
  text: string;
}

/** A realistic history of one page: `count` revisions, ids from `firstId`, each editing the last. */
export function generateHistory(count: number, options: { firstId?: number; seed?: number } = {}): GeneratedRevision[] {
  const firstId = options.firstId ?? 1000;
  let seed = options.seed ?? 1;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const words = [
    "archive",
    "revision",
    "éditions",
    "naïve",
    "日本語",
    "Ωμέγα",
    "emoji 😀",
    "café",
    "the",
    "of",
    "and",
    "<tag>",
    "a & b",
    '"quoted"',
    "line\r\nbreak",
  ];
  const paragraphs: string[] = ["== Introduction ==", "This page is generated for tests."];
  const revisions: GeneratedRevision[] = [];
  const start = Date.UTC(2019, 0, 1) / 1000;
  for (let i = 0; i < count; i++) {
    const at = Math.floor(rand() * paragraphs.length);
    const sentence = Array.from(
      { length: 8 + Math.floor(rand() * 20) },
      () => words[Math.floor(rand() * words.length)],
    ).join(" ");
    if (rand() < 0.2 && paragraphs.length > 3) paragraphs.splice(at, 1);
    else paragraphs.splice(at, 0, sentence);
    const id = firstId + i;
    revisions.push({
      id,
      parentId: i === 0 ? null : id - 1,
      timestamp: new Date((start + i * 86_400 + Math.floor(rand() * 80_000)) * 1000)
        .toISOString()
        .replace(".000Z", "Z"),
      contributor: i % 3 === 2 ? { ip: `192.0.2.${i}` } : { username: `Editor ${i % 4}`, userId: 10 + (i % 4) },
      comment: `edit ${i}: ${i % 2 ? "copy-edit" : "add section"} <b>&amp;</b>`,
      text: `${paragraphs.join("\n\n")}\n`,
    });
  }
  return revisions;
}
