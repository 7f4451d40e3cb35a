/**
 * The MediaWiki export reader on crafted input: what it yields for good
 * exports (fed in awkward chunks), and the error it gives for each kind of
 * bad input the import must explain (page, revision, problem). Also the
 * title normalisation the import relies on.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../../src/limits.ts";
import {
  decodeUtf8,
  ExportFormatError,
  readMediaWikiExport,
  RevisionProblem,
  type ExportItem,
  type ExportRevision,
} from "../../../../src/tools/import/mediawiki-reader.ts";
import { normalizeTitle } from "../../../../src/page/title.ts";
import { exportXml, mediaWikiSha1, type ExportRevisionInput } from "../../support/mediawiki-export.ts";

async function* stringChunks(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function* byteChunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.byteLength; i += size) yield bytes.subarray(i, i + size);
}

async function collect(items: AsyncIterable<ExportItem>): Promise<ExportItem[]> {
  const out: ExportItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const read = (xml: string, chunk = 4096) => collect(readMediaWikiExport(stringChunks(xml, chunk)));
const readBytes = (bytes: Uint8Array, chunk = 4096) =>
  collect(readMediaWikiExport(decodeUtf8(byteChunks(bytes, chunk))));

/**
 * How far the live heap grew above its starting point while `body` ran,
 * sampled on every `every`-th call of the `sample` callback body gets. A real
 * gc() before each sample, so garbage awaiting collection is not counted.
 */
async function liveHeapGrowth<T>(
  every: number,
  body: (sample: () => void) => Promise<T>,
): Promise<{ result: T; growth: number }> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  let calls = 0;
  const result = await body(() => {
    if (++calls % every !== 0) return;
    gc();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  });
  return { result, growth: peak - before };
}

function revisions(items: ExportItem[]): ExportRevision[] {
  return items.flatMap((i) => (i.kind === "revision" ? [i.revision] : []));
}

function problems(items: ExportItem[]): RevisionProblem[] {
  return items.flatMap((i) => (i.kind === "problem" ? [i.problem] : []));
}

/** An export whose only page is `title`, with the given revisions. */
function onePageXml(title: string | null, revs: ExportRevisionInput[]): string {
  return exportXml({ pages: [{ title, revisions: revs }] });
}

/** Reads an export whose only page has the given revisions; returns what came out. */
async function readPage(revs: ExportRevisionInput[], title = "Sandbox"): Promise<ExportItem[]> {
  return read(onePageXml(title, revs));
}

async function expectFormatError(run: Promise<unknown>, message: RegExp): Promise<ExportFormatError> {
  const err = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExportFormatError);
  expect((err as Error).message).toMatch(message);
  return err as ExportFormatError;
}

const UNICODE_TEXT = "Ébauche — naïve café, 日本語, Ωμέγα, emoji 😀🇫🇷\r\nsecond line\rthird\n";

const WELL_FORMED: ExportRevisionInput[] = [
  {
    id: 101,
    timestamp: "2001-01-15T13:15:00Z",
    contributor: { username: "Zoë Example" },
    comment: 'first <draft> & "notes"',
    model: "wikitext",
    format: "text/x-wiki",
    text: "'''Bold''' &amp; <ref>x</ref>\r\nwith CR LF",
  },
  {
    id: 105,
    parentId: 101,
    timestamp: "2001-02-28T23:59:59Z",
    contributor: { ip: "2001:db8::1" },
    comment: null,
    model: "css",
    format: "text/css",
    text: UNICODE_TEXT,
  },
  {
    id: 230,
    parentId: 105,
    timestamp: "2004-02-29T00:00:00Z",
    contributor: { ip: "192.0.2.44" },
    comment: "",
    model: "json",
    format: "application/json",
    text: '{"a": "<b>"}',
  },
];

function expectWellFormed(items: ExportItem[]): void {
  expect(problems(items)).toEqual([]);
  const revs = revisions(items);
  expect(revs.map((r) => r.id)).toEqual([101, 105, 230]);
  expect(revs.map((r) => r.parentId)).toEqual([null, 101, 105]);
  expect(revs.map((r) => r.title)).toEqual(["Édition spéciale", "Édition spéciale", "Édition spéciale"]);
  expect(revs.map((r) => r.timestamp)).toEqual([
    "2001-01-15T13:15:00Z",
    "2001-02-28T23:59:59Z",
    "2004-02-29T00:00:00Z",
  ]);
  expect(revs.map((r) => r.contributor)).toEqual(["Zoë Example", "2001:db8::1", "192.0.2.44"]);
  expect(revs.map((r) => r.comment)).toEqual(['first <draft> & "notes"', "", ""]);
  expect(revs.map((r) => r.model)).toEqual(["wikitext", "css", "json"]);
  expect(revs.map((r) => r.format)).toEqual(["text/x-wiki", "text/css", "application/json"]);
  expect(revs[0]!.text).toBe("'''Bold''' &amp; <ref>x</ref>\r\nwith CR LF");
  expect(revs[1]!.text).toBe(UNICODE_TEXT);
  expect(revs[2]!.text).toBe('{"a": "<b>"}');
  for (const r of revs) expect(r.sha1).toBe(mediaWikiSha1(r.text));
}

describe("readMediaWikiExport: well-formed exports", () => {
  for (const version of ["0.10", "0.11"] as const) {
    const xml = exportXml({ version, pages: [{ title: "édition_spéciale", revisions: WELL_FORMED }] });

    it(`reads a ${version} export in one chunk`, async () => {
      expectWellFormed(await read(xml, xml.length));
    });

    it(`reads a ${version} export split into string chunks that cut tags, entities and surrogate pairs`, async () => {
      for (const size of [1, 2, 3, 7, 61, 1000]) expectWellFormed(await read(xml, size));
    });

    it(`reads a ${version} export from byte chunks that cut multi-byte UTF-8 sequences`, async () => {
      const bytes = new TextEncoder().encode(xml);
      for (const size of [1, 2, 3, 5, 64]) expectWellFormed(await readBytes(bytes, size));
    });
  }

  it("keeps CR from &#13; (a literal CR in XML is normalised to LF, as XML requires)", async () => {
    const xml = exportXml({
      pages: [{ title: "CR", revisions: [{ id: 1, text: "a", sha1: false, bytes: false }] }],
    }).replace('<text xml:space="preserve">a</text>', '<text xml:space="preserve">a&#13;\nb\r\nc&#x0D;</text>');
    const [rev] = revisions(await read(xml));
    expect(rev!.text).toBe("a\r\nb\nc\r");
  });

  it("reads CDATA sections and character references in text", async () => {
    const xml = exportXml({
      pages: [{ title: "Cdata", revisions: [{ id: 1, text: "x", sha1: false, bytes: false }] }],
    }).replace(
      '<text xml:space="preserve">x</text>',
      '<text xml:space="preserve">&lt;<![CDATA[<raw> & ]]>&#233;&#x1F600;&apos;</text>',
    );
    expect(revisions(await read(xml))[0]!.text).toBe("<<raw> & é😀'");
  });

  it("defaults a missing model to wikitext and the format to the model's", async () => {
    const [rev] = revisions(await readPage([{ id: 3, model: null, format: null, text: "t" }]));
    expect(rev).toMatchObject({ model: "wikitext", format: "text/x-wiki" });
    const [css] = revisions(await readPage([{ id: 4, model: "css", format: null, text: "t" }]));
    expect(css).toMatchObject({ model: "css", format: "text/css" });
  });

  it("accepts an explicit UTF-8 declaration, a BOM, and an empty text", async () => {
    const xml = `\uFEFF${exportXml({ declaration: '<?xml version="1.0" encoding="UTF-8"?>', pages: [{ title: "Empty", revisions: [{ id: 9, text: "" }] }] })}`;
    const items = await readBytes(new TextEncoder().encode(xml), 7);
    expect(problems(items)).toEqual([]);
    expect(revisions(items)[0]).toMatchObject({ id: 9, text: "", sha1: mediaWikiSha1("") });
  });

  it("reads several pages, each revision titled by its own page", async () => {
    const xml = exportXml({
      pages: [
        {
          title: "First page",
          revisions: [
            { id: 1, text: "one" },
            { id: 2, parentId: 1, text: "two" },
          ],
        },
        { title: "second_page", revisions: [{ id: 3, text: "three" }] },
      ],
    });
    const revs = revisions(await read(xml, 13));
    expect(revs.map((r) => [r.title, r.id])).toEqual([
      ["First page", 1],
      ["First page", 2],
      ["Second page", 3],
    ]);
  });

  it("yields revisions as it goes, not only at the end of the input", async () => {
    const xml = onePageXml("Lazy", [
      { id: 1, text: "one" },
      { id: 2, text: "two" },
    ]);
    const cut = xml.indexOf("</revision>") + "</revision>".length;
    let secondHalfRead = false;
    async function* input() {
      yield xml.slice(0, cut);
      secondHalfRead = true;
      yield xml.slice(cut);
    }
    const reader = readMediaWikiExport(input());
    const first = await reader.next();
    expect(first.value).toMatchObject({ kind: "revision", revision: { id: 1 } });
    expect(secondHalfRead).toBe(false);
    await collect(reader);
  });
});

describe("readMediaWikiExport: bad input names the page, the revision and the problem", () => {
  async function onlyProblem(revs: ExportRevisionInput[], title = "Sandbox"): Promise<RevisionProblem> {
    const items = await readPage(revs, title);
    expect(revisions(items)).toEqual([]);
    const found = problems(items);
    expect(found).toHaveLength(1);
    return found[0]!;
  }

  it("malformed XML is an ExportFormatError with line and column (and the page and revision)", async () => {
    const xml = onePageXml("Broken", [{ id: 41, comment: "c", text: "ok" }]).replace("</comment>", "</comennt>");
    const lines = xml.split("\n");
    const line = lines.findIndex((l) => l.includes("</comennt>")) + 1;
    const err = await expectFormatError(read(xml, 10), /malformed XML at line \d+, column \d+/);
    expect(err.message).toContain(`line ${line},`);
    expect(err.message).toMatch(/unexpected close tag/);
    expect(err.message).toMatch(/\(in page "Broken" revision 41\)$/);
    expect(err.message).not.toMatch(/column \d+: \d+:\d+:/); // saxes's own position prefix is stripped
  });

  it("malformed XML: an unescaped & and a truncated file", async () => {
    const xml = onePageXml("Amp", [{ id: 25, text: "x" }]);
    // saxes reads an unescaped & up to the next ";" as an entity name, and reports it there.
    await expectFormatError(
      read(xml.replace("<ns>0</ns>", "<ns>AT&T; 0</ns>")),
      /malformed XML at line 11, column \d+: .*entity.*\(in page "Amp"\)$/,
    );
    await expectFormatError(read(xml.replace("<ns>0</ns>", "<ns>0 & 1</ns>")), /malformed XML at line \d+, column \d+/);
    await expectFormatError(
      read(xml.replace("<id>25</id>", "<id>25</id><timestamp a=b>")),
      /malformed XML at line \d+, column \d+: .*\(in page "Amp" revision 25\)$/,
    );
    await expectFormatError(read(xml.slice(0, xml.indexOf("</page>"))), /malformed XML at line \d+, column \d+/);
    await expectFormatError(read(""), /empty|root/);
  });

  it("missing <timestamp>", async () => {
    const p = await onlyProblem([{ id: 77, timestamp: null, text: "t" }]);
    expect(p).toMatchObject({ title: "Sandbox", revisionId: "77" });
    expect(String(p)).toBe('page "Sandbox" revision 77: missing <timestamp>');
  });

  it("missing <text>", async () => {
    const p = await onlyProblem([{ id: 78, text: null }]);
    expect(String(p)).toBe('page "Sandbox" revision 78: missing <text>');
  });

  it("missing <id> (the revision can only be named by what is missing)", async () => {
    const p = await onlyProblem([{ id: null, text: "t" }]);
    expect(p.title).toBe("Sandbox");
    expect(String(p)).toMatch(/^page "Sandbox" revision \?: missing <id>$/);
  });

  it("a non-numeric <id> and <parentid>", async () => {
    expect(String(await onlyProblem([{ id: "12a", text: "t" }]))).toMatch(
      /revision 12a: <id> is not a positive integer/,
    );
    expect(String(await onlyProblem([{ id: 0, text: "t" }]))).toMatch(/<id> is not a positive integer/);
    const bad = await onlyProblem([{ id: 5, text: "t", extra: "      <parentid>x</parentid>" }]);
    expect(String(bad)).toMatch(/revision 5: /);
  });

  it.each([
    ["2020-13-01T00:00:00Z"],
    ["2020-01-01 00:00:00"],
    ["2020-02-30T00:00:00Z"],
    ["2020-01-01T24:00:00Z"],
    ["2020-01-01T00:00:00+01:00"],
    ["2020-01-01T00:00:00.000Z"],
    ["yesterday"],
    [""],
  ])("bad timestamp %j", async (timestamp) => {
    const p = await onlyProblem([{ id: 90, timestamp, text: "t" }]);
    expect(p).toMatchObject({ title: "Sandbox", revisionId: "90" });
    expect(p.reason).toContain(`bad <timestamp> ${JSON.stringify(timestamp)}`);
  });

  it.each([
    ["A[b", /illegal character "\["/],
    ["a|b", /illegal character "\|"/],
    ["{{x}}", /illegal character "\{"/],
    ["", /title is empty/],
    ["   ", /title is empty/],
    ["_", /title is empty/],
    ["a\u007fb", /illegal character/],
    ["50%", /percent/],
    ["../etc", /relative path/],
    ["x".repeat(256), /maxTitleBytes/],
  ])("invalid title %j", async (title, reason) => {
    const p = await onlyProblem([{ id: 31, text: "t" }], title);
    expect(p.revisionId).toBe("31");
    expect(p.reason).toMatch(/^invalid title: /);
    expect(p.reason).toMatch(reason);
    expect(String(p)).toContain(`revision 31: invalid title`);
  });

  it("a control character XML forbids is malformed XML, not a title problem", async () => {
    await expectFormatError(
      readPage([{ id: 1, text: "t" }], "a\u0007b"),
      /malformed XML at line 10, column \d+: disallowed character/,
    );
  });

  it("a page with no <title>", async () => {
    const xml = onePageXml(null, [{ id: 8, text: "t" }]);
    expect(String(problems(await read(xml))[0])).toMatch(/revision 8: page has no <title>/);
  });

  it("invalid UTF-8 bytes are an ExportFormatError naming the byte range", async () => {
    const good = new TextEncoder().encode(onePageXml("Latin", [{ id: 1, text: "caf__" }]));
    const at = Buffer.from(good).indexOf("caf__") + 3;
    const bad = Uint8Array.from(good);
    bad[at] = 0xe9; // "é" in ISO-8859-1, not UTF-8
    const err = await expectFormatError(readBytes(bad, 1 << 20), /not valid UTF-8/);
    expect(err.message).toMatch(/bytes? \d+/);
    // A stray continuation byte, and an overlong encoding, split across chunks.
    bad[at] = 0x80;
    await expectFormatError(readBytes(bad, 3), /not valid UTF-8/);
    bad[at] = 0xc0;
    bad[at + 1] = 0xaf;
    await expectFormatError(readBytes(bad, 1), /not valid UTF-8/);
  });

  it("an export that ends inside a UTF-8 sequence is an ExportFormatError", async () => {
    const bytes = new TextEncoder().encode('<mediawiki version="0.11">é');
    await expectFormatError(readBytes(bytes.subarray(0, bytes.byteLength - 1), 4), /UTF-8/);
  });

  it('encoding="ISO-8859-1" in the XML declaration is an ExportFormatError', async () => {
    const xml = exportXml({
      declaration: '<?xml version="1.0" encoding="ISO-8859-1"?>',
      pages: [{ title: "Latin", revisions: [{ id: 1, text: "t" }] }],
    });
    await expectFormatError(read(xml), /encoding ISO-8859-1; only UTF-8/);
  });

  it("UTF-16 input is rejected, not misread", async () => {
    const xml = onePageXml("Sixteen", [{ id: 1, text: "t" }]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, "utf16le")]);
    await expect(readBytes(utf16)).rejects.toBeInstanceOf(ExportFormatError);
  });

  it("an unsupported schema version (0.9) is an ExportFormatError; so is a wrong root", async () => {
    await expectFormatError(read(exportXml({ version: "0.9", pages: [] })), /schema version "0\.9" is not supported/);
    await expectFormatError(read(exportXml({ version: "0.12", pages: [] })), /schema version "0\.12"/);
    await expectFormatError(read("<mediawiki><page/></mediawiki>"), /schema version "" is not supported/);
    await expectFormatError(read('<html version="0.11"></html>'), /root element is <html>/);
  });

  it("an unknown content model", async () => {
    const p = await onlyProblem([{ id: 12, model: "foo", text: "t" }]);
    expect(String(p)).toMatch(
      /^page "Sandbox" revision 12: unknown content model "foo" \(known: wikitext, html, css, javascript, json, text\)$/,
    );
  });

  it("a bytes= attribute that does not match the text", async () => {
    const p = await onlyProblem([{ id: 13, text: "héllo", bytes: 5 }]);
    expect(String(p)).toBe('page "Sandbox" revision 13: <text bytes="5"> but the text is 6 bytes of UTF-8');
  });

  it("a malformed <sha1>", async () => {
    const p = await onlyProblem([{ id: 14, text: "t", sha1: "not-a-hash" }]);
    expect(String(p)).toMatch(/revision 14: <sha1> is not a 31-digit base-36 hash/);
  });

  it("deleted text is a revision without its text, hidden, keeping its id, parent and time", async () => {
    const xml = onePageXml("Gone", [{ id: 15, text: "x" }]).replace(
      /<text[^>]*>x<\/text>/,
      '<text bytes="1" deleted="deleted" />',
    );
    const items = await read(xml);
    expect(problems(items)).toEqual([]);
    expect(revisions(items)[0]).toMatchObject({
      id: 15,
      text: "",
      sha1: null,
      textMissing: true,
      hidden: { content: true },
    });
  });

  it("a hidden contributor or comment, as XmlDumpWriter writes them, or with their values in a backup", async () => {
    const xml = onePageXml("Hid", [
      { id: 16, text: "x" },
      { id: 17, text: "y" },
    ])
      .replace(
        /<contributor>[\s\S]*?<\/contributor>/,
        '<contributor deleted="deleted" />\n      <comment deleted="deleted" />',
      )
      .replace(/(<id>17<\/id>[\s\S]*?)<contributor>/, '$1<contributor deleted="deleted">');
    const [a, b] = revisions(await read(xml));
    expect(a).toMatchObject({ id: 16, contributor: "", comment: "", hidden: { comment: true, contributor: true } });
    expect(b!.hidden).toEqual({ contributor: true });
    expect(b!.contributor).not.toBe("");
  });

  it("a comment or contributor over its limit", async () => {
    const c = await onlyProblem([{ id: 16, comment: "c".repeat(LIMITS.page.maxCommentBytes + 1), text: "t" }]);
    expect(c.reason).toMatch(/maxCommentBytes/);
    const u = await onlyProblem([{ id: 17, contributor: { username: "é".repeat(128) }, text: "t" }]);
    expect(u.reason).toMatch(/maxContributorBytes/);
  });

  it("a field given twice is one problem for that revision, and the revision is not also yielded", async () => {
    const items = await readPage([
      { id: 18, text: "t", extra: "      <timestamp>2021-01-01T00:00:00Z</timestamp>" },
      { id: 19, text: "u" },
    ]);
    expect(problems(items).map(String)).toEqual(['page "Sandbox" revision 18: duplicate <timestamp>']);
    expect(revisions(items).map((r) => r.id)).toEqual([19]);
    // A second <id> names the revision by its first.
    const twoIds = await readPage([{ id: 20, text: "t", extra: "      <id>21</id>" }]);
    expect(problems(twoIds).map(String)).toEqual(['page "Sandbox" revision 20: duplicate <id>']);
    expect(revisions(twoIds)).toEqual([]);
  });

  it("a bad revision does not disturb the ones around it", async () => {
    const items = await readPage([
      { id: 1, text: "a" },
      { id: 2, parentId: 1, timestamp: "2020-13-01T00:00:00Z", text: "b" },
      { id: 3, parentId: 2, text: "c" },
    ]);
    expect(
      items.map((i) =>
        i.kind === "revision" ? i.revision.id : i.kind === "problem" ? `problem ${i.problem.revisionId}` : i.kind,
      ),
    ).toEqual([1, "problem 2", 3]);
  });

  it("duplicate revision ids within a page pass the reader (the write API rejects them; see the CLI black-box test)", async () => {
    const items = await readPage([
      { id: 50, text: "a" },
      { id: 50, text: "b" },
    ]);
    expect(revisions(items).map((r) => r.id)).toEqual([50, 50]);
  });
});

describe("readMediaWikiExport: oversized text", () => {
  const LIMIT = LIMITS.page.maxRevisionBytes;

  /** An export whose one revision's text is `repeat` copies of `unit`, streamed in 64 KiB pieces. */
  async function* hugeExport(unit: string, repeat: number, onChunk?: () => void): AsyncGenerator<string> {
    const [head, tail] = onePageXml("Huge", [
      { id: 7, text: "@@TEXT@@", bytes: false, sha1: false },
      { id: 8, parentId: 7, text: "small" },
    ]).split("@@TEXT@@");
    yield head!;
    const piece = unit.repeat(Math.max(1, Math.floor(65_536 / unit.length)));
    const perPiece = piece.length / unit.length;
    let left = repeat;
    while (left > 0) {
      const n = Math.min(left, perPiece);
      // A fresh string each time, as decoded input would be (a repeated string object would cost nothing to hold).
      yield n === perPiece ? Buffer.from(piece).toString() : unit.repeat(n);
      left -= n;
      onChunk?.();
    }
    yield tail!;
  }

  it("a text of exactly the limit is accepted", async () => {
    const items = await collect(readMediaWikiExport(hugeExport("a", LIMIT)));
    expect(problems(items)).toEqual([]);
    expect(revisions(items).map((r) => [r.id, Buffer.byteLength(r.text)])).toEqual([
      [7, LIMIT],
      [8, 5],
    ]);
  });

  it("one byte over the limit is a problem naming the page, revision and limit, and the next revision still comes", async () => {
    const items = await collect(readMediaWikiExport(hugeExport("a", LIMIT + 1)));
    expect(problems(items).map(String)).toEqual([
      `page "Huge" revision 7: text exceeds page.maxRevisionBytes (${LIMIT} bytes)`,
    ]);
    expect(revisions(items).map((r) => r.id)).toEqual([8]);
  });

  it("counts UTF-8 bytes, not characters: multi-byte text over the limit in bytes but not in characters", async () => {
    // 2-byte characters: (LIMIT/2 + 1) of them are LIMIT + 2 bytes but only LIMIT/2 + 1 UTF-16 units.
    const items = await collect(readMediaWikiExport(hugeExport("é", LIMIT / 2 + 1)));
    expect(problems(items).map(String)).toEqual([
      `page "Huge" revision 7: text exceeds page.maxRevisionBytes (${LIMIT} bytes)`,
    ]);
    expect(revisions(items).map((r) => r.id)).toEqual([8]);
  });

  it("a long text read in pieces keeps every character, entity, CR and surrogate pair", async () => {
    // Over 1 Mi characters, so the reader takes the text from the parser between chunks.
    const unit = 'a&b <c> "q" \r\n é 😀 x\ry ]] > ';
    const text = unit.repeat(Math.ceil(3_000_000 / unit.length));
    const xml = onePageXml("Long", [
      { id: 1, text },
      { id: 2, parentId: 1, text: "short" },
    ]);
    for (const size of [65_521, 1_000_003]) {
      const items = await read(xml, size);
      expect(problems(items)).toEqual([]);
      const [long, short] = revisions(items);
      expect(long!.text.length).toBe(text.length);
      expect(long!.text === text).toBe(true);
      expect(short!.text).toBe("short");
    }
    const items = await readBytes(new TextEncoder().encode(xml), 65_537);
    expect(revisions(items)[0]!.text === text).toBe(true);
  });

  it("does not buffer a huge text: live heap stays far below its size", async () => {
    const size = 4 * LIMIT; // 64 MiB of text
    // Sampled every 4 MiB.
    const { result: items, growth } = await liveHeapGrowth(64, (sample) =>
      collect(readMediaWikiExport(hugeExport("0123456789abcdef", size / 16, sample))),
    );
    expect(problems(items)).toHaveLength(1);
    expect(problems(items)[0]!.reason).toMatch(/exceeds page\.maxRevisionBytes/);
    // It may hold up to the limit (16 MiB) while it cannot yet tell; never the whole 64 MiB.
    expect(growth).toBeLessThan(size / 2);
  }, 60_000);
});

describe("readMediaWikiExport: everything saxes holds is bounded", () => {
  const LIMIT = LIMITS.page.maxRevisionBytes;

  /**
   * An export whose second revision (id 2) holds `open`, then `repeat`
   * copies of `unit` streamed in 64 KiB pieces, then `close`, in place of
   * its <text> element (or of its text, if `open` does not start one). Its
   * first and third revisions are ordinary.
   */
  async function* hostile(
    open: string,
    unit: string,
    repeat: number,
    close: string,
    onChunk?: () => void,
  ): AsyncGenerator<string> {
    const revs = [
      { id: 1, text: "one" },
      { id: 2, parentId: 1, text: "@@X@@", bytes: false, sha1: false },
      { id: 3, parentId: 2, text: "three" },
    ];
    const [head, tail] = onePageXml("Hostile", revs).split("@@X@@") as [string, string];
    const whole = /^<text[\s>]/.test(open);
    yield (whole ? head.replace(/<text[^>]*>$/, "") : head) + open;
    const perPiece = Math.max(1, Math.floor(65_536 / unit.length));
    for (let left = repeat; left > 0; left -= perPiece) {
      // A fresh string each time, as decoded input would be.
      yield Buffer.from(unit.repeat(Math.min(left, perPiece))).toString();
      onChunk?.();
    }
    yield close + (whole ? tail.replace(/^<\/text>/, "") : tail);
  }
  const readHostile = (open: string, unit: string, repeat: number, close: string) =>
    collect(readMediaWikiExport(hostile(open, unit, repeat, close)));
  const summary = (items: ExportItem[]) =>
    items.map((i) => (i.kind === "revision" ? i.revision.id : i.kind === "problem" ? String(i.problem) : i.kind));

  it.each([
    ["a comment", "<!--", "-->"],
    ["a processing instruction", "<?note ", "?>"],
  ])(
    "%s up to page.maxRevisionBytes is dropped; one character more is a problem for its revision only",
    async (what, open, close) => {
      expect(summary(await readHostile(open, "a", LIMIT, close))).toEqual([1, 2, 3]);
      expect(summary(await readHostile(open, "a", LIMIT + 1, close))).toEqual([
        1,
        `page "Hostile" revision 2: ${what} is longer than page.maxRevisionBytes (${LIMIT} bytes)`,
        3,
      ]);
    },
  );

  it("CDATA sections count as text: 64 MiB of them in 64 KiB sections are a problem, not 64 MiB of heap", async () => {
    const section = `${"a".repeat(65_536 - 12)}]]><![CDATA[`;
    const size = 4 * LIMIT;
    // Sampled every 4 MiB.
    const { result: items, growth } = await liveHeapGrowth(64, (sample) =>
      collect(readMediaWikiExport(hostile("<text><![CDATA[", section, size / section.length, "]]></text>", sample))),
    );
    expect(summary(items)).toEqual([
      1,
      `page "Hostile" revision 2: text exceeds page.maxRevisionBytes (${LIMIT} bytes)`,
      3,
    ]);
    // It may hold up to the limit (16 MiB) while it cannot yet tell; never the whole 64 MiB.
    expect(growth).toBeLessThan(size / 2);
  }, 60_000);

  it("attribute values: 64 KiB on one element are read whole, more are a problem for the revision", async () => {
    const fits = await readHostile('<text note="', "é", 65_536, '">x</text>');
    expect(summary(fits)).toEqual([1, 2, 3]);
    const over = await readHostile('<text note="', "é", 65_537, '">x</text>');
    expect(summary(over)).toEqual([
      1,
      'page "Hostile" revision 2: the attribute values of <text> are longer than 65536 characters',
      3,
    ]);
    const split = await readHostile('<text a="', "x", 40_000, `" b="${"y".repeat(30_000)}">x</text>`);
    expect(summary(split)[1]).toMatch(/attribute values of <text> are longer than 65536/);
  });

  it.each([
    [
      "a comment between pages",
      "",
      "<!--",
      "a",
      LIMIT + 1,
      "-->",
      /^a comment is longer than page\.maxRevisionBytes \(16777216 bytes\), at line \d+$/,
    ],
    ["a DOCTYPE", "doctype", "", "a", LIMIT + 1, "", /the DOCTYPE is longer than page\.maxRevisionBytes/],
    [
      "an element name",
      "",
      "<text><",
      "a",
      1025,
      "/></text>",
      /a name, entity reference or XML declaration longer than 1024 characters/,
    ],
    [
      "an entity reference of line breaks",
      "",
      "<text>&",
      "\n",
      1 << 20,
      ";</text>",
      /a name, entity reference or XML declaration longer than 1024 characters/,
    ],
    ["elements nested 65 deep", "", "<text>", "<a>", 65, "</text>", /elements nested more than 64 deep/],
    [
      "65 attributes",
      "",
      "<text ",
      "a",
      0,
      `${Array.from({ length: 65 }, (_, i) => `a${i}=""`).join(" ")}>x</text>`,
      /<text> has more than 64 attributes/,
    ],
  ])("%s past its bound is an ExportFormatError", async (_, where, open, unit, repeat, close, message) => {
    if (where === "doctype") {
      async function* input() {
        yield "<!DOCTYPE mediawiki [";
        for (let left = LIMIT + 1; left > 0; left -= 65_536)
          yield Buffer.from("a".repeat(Math.min(left, 65_536))).toString();
        yield ']><mediawiki version="0.11"></mediawiki>';
      }
      await expectFormatError(collect(readMediaWikiExport(input())), message);
      return;
    }
    if (open === "<!--") {
      // Between the first page and a second one, so no revision is open.
      async function* input() {
        const xml = exportXml({
          pages: [
            { title: "Hostile", revisions: [{ id: 1, text: "one" }] },
            { title: "After", revisions: [{ id: 2, text: "two" }] },
          ],
        });
        const at = xml.indexOf("</page>") + "</page>".length;
        yield `${xml.slice(0, at)}<!--`;
        for (let left = repeat; left > 0; left -= 65_536)
          yield Buffer.from(unit.repeat(Math.min(left, 65_536))).toString();
        yield `-->${xml.slice(at)}`;
      }
      await expectFormatError(collect(readMediaWikiExport(input())), message);
      return;
    }
    await expectFormatError(readHostile(open, unit, repeat, close), message);
  });

  it("a text of 4 Mi one-character CDATA sections is read whole, without ~32 bytes of heap per section", async () => {
    const sections = 4 << 20;
    const { result: items, growth } = await liveHeapGrowth(64, (sample) =>
      collect(readMediaWikiExport(hostile("<text>", "<![CDATA[é]]>", sections, "</text>", sample))),
    );
    expect(problems(items)).toEqual([]);
    const long = revisions(items).find((r) => r.id === 2)!;
    expect(long.text === "é".repeat(sections)).toBe(true);
    // 8 MiB as text (two bytes a character); as one string per section, 128 MiB.
    expect(growth).toBeLessThan(48 * 1024 * 1024);
  }, 60_000);

  it("a text of line breaks up to the limit is read whole, without saxes's ~32 bytes of heap per line", async () => {
    // CR LF: saxes appends one string per line (it reads CR LF as one line break).
    const lines = LIMIT / 2 - 1;
    const { result: items, growth } = await liveHeapGrowth(32, (sample) =>
      collect(readMediaWikiExport(hostile("<text>", "\r\n", lines, "</text>", sample))),
    );
    expect(problems(items)).toEqual([]);
    const long = revisions(items).find((r) => r.id === 2)!;
    expect(long.text.length).toBe(lines);
    expect(/^\n*$/.test(long.text)).toBe(true);
    // 8 Mi line breaks: 8 MiB as text; as one string per line, 256 MiB.
    expect(growth).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});

describe("normalizeTitle", () => {
  it.each([
    ["bip_0340", "Bip 0340", "Bip_0340"],
    ["BIP 0340", "BIP 0340", "BIP_0340"],
    ["  foo   bar  ", "Foo bar", "Foo_bar"],
    ["foo__bar_", "Foo bar", "Foo_bar"],
    ["_ _foo_ _", "Foo", "Foo"],
    ["foo\u00a0\u3000bar", "Foo bar", "Foo_bar"],
    ["ébauche", "Ébauche", "Ébauche"],
    ["ωμέγα", "Ωμέγα", "Ωμέγα"],
    ["日本語", "日本語", "日本語"],
    ["1st place", "1st place", "1st_place"],
    ["iPhone", "IPhone", "IPhone"],
    ["𐐨x", "𐐀x", "𐐀x"], // astral-plane letter (Deseret): upper-cased as a whole code point
  ])("%j → %j", (raw, title, key) => {
    expect(normalizeTitle(raw)).toEqual({ ok: true, title, key });
  });

  it("keeps the rest of the title's case", () => {
    expect(normalizeTitle("mIxEd CaSe")).toMatchObject({ title: "MIxEd CaSe" });
  });

  it("allows 255 bytes of UTF-8 and no more", () => {
    expect(normalizeTitle("a".repeat(255))).toMatchObject({ ok: true });
    expect(normalizeTitle("a".repeat(256))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/maxTitleBytes \(255 bytes of UTF-8\)/),
    });
    expect(normalizeTitle(`${"é".repeat(127)}a`)).toMatchObject({ ok: true }); // 255 bytes
    expect(normalizeTitle("é".repeat(128))).toMatchObject({ ok: false }); // 256 bytes, 128 characters
    expect(normalizeTitle(`${"a".repeat(255)}   `)).toMatchObject({ ok: true }); // trailing spaces trimmed first
    expect(normalizeTitle("😀".repeat(64))).toMatchObject({ ok: false }); // 256 bytes
  });

  it.each([
    "",
    " ",
    "___",
    "a[b",
    "a]b",
    "a|b",
    "a{b",
    "a}b",
    "a<b",
    "a>b",
    "a#b",
    "a\nb",
    "a\u007fb",
    "a\ufffdb",
    "a%20b",
    ".",
    "..",
    "a/../b",
    "./a",
  ])("rejects %j", (raw) => {
    const r = normalizeTitle(raw);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.reason).toMatch(/\S/);
  });
});
