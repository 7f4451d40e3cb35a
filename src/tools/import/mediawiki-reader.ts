/**
 * Streams revisions out of a MediaWiki XML export (schema 0.10 or 0.11)
 * without holding more than one revision in memory. Structural problems
 * (malformed XML, a wrong encoding) end the stream; problems with a single
 * revision are reported as a {@link RevisionProblem} so the importer can
 * skip or stop as asked.
 *
 * @example
 * for await (const item of readMediaWikiExport(textChunks)) {
 *   if (item.kind === "revision") store(item.revision);
 * }
 */
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { LIMITS } from "../../limits.ts";
import { isContentModel, CONTENT_MODELS, formatRefusal } from "../../page/content-model.ts";
import { cleanName, normalizeTitle } from "../../page/title.ts";
import type { NewRevision } from "../../page/types.ts";
import { heldBy, takeHeld } from "./saxes-held.ts";
import { TextBuffer } from "./text-buffer.ts";

/**
 * A revision as the export states it: its page title, a format always, the SHA-1 if the export
 * gives one, its cache tags, and whether it is suppressed (a backup's `<palimpsest:suppressed>`).
 */
export type ExportRevision = Omit<NewRevision, "format" | "sha1" | "tags"> & {
  title: string;
  /** The page's `<id>`: its id on its wiki. */
  wikiPageId?: number;
  format: string;
  sha1: string | null;
  tags: string[];
  suppressed: boolean;
};

/**
 * A page the export marks deleted as MediaWiki deletes (a backup's `<palimpsest:deleted />`, after its
 * revisions): restored deleted, so the public sees 410 as before.
 */
export interface DeletedPage {
  title: string;
}

/**
 * Our own elements in a revision (src/origin/export-xml.ts writes them): a cache tag each, and in a
 * backup a suppressed revision's content, with its bytes and sha1, after `<text deleted="deleted" />`.
 */
const TAG = "palimpsest:tag";
const SUPPRESSED = "palimpsest:suppressed";
const PAGE_DELETED = "palimpsest:deleted";

export type ExportItem =
  | { kind: "revision"; revision: ExportRevision }
  | { kind: "problem"; problem: RevisionProblem }
  | { kind: "deleted"; page: DeletedPage };

export class RevisionProblem {
  constructor(
    readonly title: string | null,
    readonly revisionId: string | null,
    readonly reason: string,
    /**
     * The export hides the revision's text (`<text deleted="deleted"/>`: MediaWiki's revision
     * deletion, which dumpBackup.php writes so for any revision whose content is hidden). Not a
     * fault of the export, but the archive holds no revision without its text.
     */
    readonly textHidden = false,
  ) {}

  toString(): string {
    return `page ${JSON.stringify(this.title ?? "?")} revision ${this.revisionId ?? "?"}: ${this.reason}`;
  }
}

/** The export itself is unreadable; nothing after this point can be trusted. */
export class ExportFormatError extends Error {
  override readonly name = "ExportFormatError";
}

const SUPPORTED_SCHEMAS = new Set(["0.10", "0.11"]);
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

interface Draft {
  fields: Map<string, string>;
  contributor: string | null;
  textBytesAttr: string | null;
  /** UTF-8 bytes of the <text> read, counted piece by piece: measuring the whole would flatten it, a copy of it all. */
  textBytes: number;
  textDeleted: boolean;
  textOversized: boolean;
  tags: string[];
  /** `<contributor deleted="deleted">` and `<comment deleted="deleted">`: hidden by revision deletion. */
  contributorHidden: boolean;
  commentHidden: boolean;
  /** The SHA-1 a `<palimpsest:suppressed>` states; null if the revision has none. */
  suppressedSha1: string | null;
  suppressed: boolean;
  /** A problem found while reading the revision (e.g. a field given twice); it wins over the fields. */
  problem: string | null;
}

function newDraft(): Draft {
  return {
    fields: new Map(),
    contributor: null,
    textBytesAttr: null,
    textBytes: 0,
    textDeleted: false,
    textOversized: false,
    tags: [],
    contributorHidden: false,
    commentHidden: false,
    suppressedSha1: null,
    suppressed: false,
    problem: null,
  };
}

function validTimestamp(value: string): boolean {
  const m = TIMESTAMP.exec(value);
  if (!m) return false;
  const d = new Date(value);
  return !Number.isNaN(d.getTime()) && d.toISOString().replace(".000Z", "Z") === value;
}

function toRevision(title: string | null, draft: Draft): ExportItem {
  const f = draft.fields;
  const idText = f.get("id") ?? null;
  const problem = (reason: string, textHidden = false): ExportItem => ({
    kind: "problem",
    problem: new RevisionProblem(title, idText, reason, textHidden),
  });
  if (draft.problem !== null) return problem(draft.problem);
  if (title === null) return problem("page has no <title> before its revisions");
  const t = normalizeTitle(title);
  if (!t.ok) return problem(`invalid title: ${t.reason}`);
  if (idText === null) return problem("missing <id>");
  if (!/^[1-9]\d{0,15}$/.test(idText)) return problem(`<id> is not a positive integer: ${JSON.stringify(idText)}`);
  const parentText = f.get("parentid");
  if (parentText !== undefined && !/^[1-9]\d{0,15}$/.test(parentText))
    return problem(`<parentid> is not a positive integer: ${JSON.stringify(parentText)}`);
  const timestamp = f.get("timestamp");
  if (timestamp === undefined) return problem("missing <timestamp>");
  if (!validTimestamp(timestamp))
    return problem(`bad <timestamp> ${JSON.stringify(timestamp)} (expected YYYY-MM-DDTHH:MM:SSZ)`);
  const model = f.get("model") ?? "wikitext";
  if (!isContentModel(model))
    return problem(`unknown content model ${JSON.stringify(model)} (known: ${Object.keys(CONTENT_MODELS).join(", ")})`);
  const refusedFormat = formatRefusal(model, f.get("format"));
  if (refusedFormat) return problem(refusedFormat);
  // Hidden by revision deletion before this export was made, and not in it: stored without its text,
  // keeping its id, parent and time, so its child's parent exists in the archive as on the wiki.
  const textMissing = draft.textDeleted && !draft.suppressed;
  if (draft.textOversized) return problem(`text exceeds page.maxRevisionBytes (${LIMITS.page.maxRevisionBytes} bytes)`);
  const text = textMissing ? "" : f.get(draft.suppressed ? SUPPRESSED : "text");
  if (text === undefined) return problem("missing <text>");
  const bytes = draft.textBytes;
  if (bytes > LIMITS.page.maxRevisionBytes)
    return problem(`text exceeds page.maxRevisionBytes (${LIMITS.page.maxRevisionBytes} bytes)`);
  if (!textMissing && draft.textBytesAttr !== null && Number(draft.textBytesAttr) !== bytes) {
    return problem(`<text bytes="${draft.textBytesAttr}"> but the text is ${bytes} bytes of UTF-8`);
  }
  const comment = f.get("comment") ?? "";
  if (new TextEncoder().encode(comment).byteLength > LIMITS.page.maxCommentBytes)
    return problem(`comment exceeds page.maxCommentBytes (${LIMITS.page.maxCommentBytes})`);
  const named = cleanName(draft.contributor ?? "");
  if (!named.ok) return problem(`the contributor's name ${named.reason}`);
  const contributor = named.value;
  if (new TextEncoder().encode(contributor).byteLength > LIMITS.page.maxContributorBytes) {
    return problem(`contributor exceeds page.maxContributorBytes (${LIMITS.page.maxContributorBytes})`);
  }
  const sha1 = draft.suppressed ? draft.suppressedSha1 : textMissing ? null : (f.get("sha1") ?? null);
  if (sha1 !== null && !/^[0-9a-z]{31}$/.test(sha1))
    return problem(`<sha1> is not a 31-digit base-36 hash: ${JSON.stringify(sha1)}`);
  return {
    kind: "revision",
    revision: {
      title: t.title,
      id: Number(idText),
      parentId: parentText === undefined ? null : Number(parentText),
      timestamp,
      contributor,
      comment,
      model,
      format: f.get("format") ?? CONTENT_MODELS[model].format,
      text,
      sha1,
      tags: draft.tags,
      suppressed: draft.suppressed || textMissing,
      ...(textMissing ? { textMissing: true } : {}),
      ...(draft.suppressed || textMissing || draft.commentHidden || draft.contributorHidden
        ? {
            hidden: {
              ...(draft.suppressed || textMissing ? { content: true } : {}),
              ...(draft.commentHidden ? { comment: true } : {}),
              ...(draft.contributorHidden ? { contributor: true } : {}),
            },
          }
        : {}),
    },
  };
}

/**
 * Characters written to saxes at once. After each write the reader takes what
 * saxes holds of the node being read once it reaches this much (see
 * saxes-held.ts), so saxes never holds more than two writes' worth: a few MiB
 * even when every character is a line break.
 */
const WRITE_CHARS = 1 << 16;

/**
 * Bounds on markup, which saxes must hold whole (names, entity references,
 * attribute values) and keeps for every open element (its attributes). A
 * MediaWiki export stays far below them (names of a few characters, elements
 * nested 5 deep, 5 attributes and 200 characters of values on <mediawiki>);
 * past them the input is not an export, and holding it could take any amount
 * of memory.
 */
const MARKUP = LIMITS.importMarkup;

/** How the nodes the reader drops unread are named in errors. */
const DROPPED_NODE = { comment: "a comment", instruction: "a processing instruction", doctype: "the DOCTYPE" } as const;

/**
 * Decodes UTF-8 strictly: a wrong encoding is an error, not U+FFFD. Reports
 * the byte offset so the user can find the bad byte.
 */
export async function* decodeUtf8(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  let offset = 0;
  for await (const chunk of chunks) {
    try {
      yield decoder.decode(chunk, { stream: true });
    } catch {
      throw new ExportFormatError(
        `the export is not valid UTF-8 (bad byte within bytes ${offset}..${offset + chunk.byteLength})`,
      );
    }
    offset += chunk.byteLength;
  }
  try {
    yield decoder.decode();
  } catch {
    throw new ExportFormatError("the export ends inside a UTF-8 sequence");
  }
}

/**
 * The state of one export being read. saxes's handlers and the checks between
 * writes all share it, so it lives here and each handler is a short method;
 * readMediaWikiExport registers them (exactly 7, see there) and runs the writes.
 */
class ExportParse {
  /** Items finished during the current write, yielded after it. */
  readonly ready: ExportItem[] = [];
  sawRoot = false;
  private readonly path: string[] = [];
  private readonly buffer = new TextBuffer();
  private capturing = false;
  /** UTF-16 units of the element being captured (they bound its UTF-8 bytes from below). */
  private captureBytes = 0;
  private title: string | null = null;
  private pageId: number | null = null;
  private draft: Draft | null = null;
  /**
   * Characters dropped so far of the comment, processing instruction or
   * DOCTYPE being read. The first two are checked whole as they end; the
   * DOCTYPE (at most one, before the root) has no event left to end it (see
   * bound), so it is counted to within one write.
   */
  private readonly dropped = { comment: 0, instruction: 0, doctype: 0 };

  constructor(private readonly parser: SaxesParser) {}

  error(err: Error): never {
    throw new ExportFormatError(
      `malformed XML at line ${this.parser.line}, column ${this.parser.column}: ${err.message.replace(/^(?:.*?:)?\d+:\d+: /, "")}${this.where()}`,
    );
  }

  opentag(tag: SaxesTagPlain): void {
    const path = this.path;
    const parent = path[path.length - 1];
    path.push(tag.name);
    if (path.length > MARKUP.maxDepth)
      throw new ExportFormatError(
        `elements nested more than ${MARKUP.maxDepth} deep, at line ${this.parser.line}${this.where()}`,
      );
    if (tag.name === "page" && parent === "mediawiki") {
      this.title = null;
      this.pageId = null;
    } else if (tag.name === "revision" && parent === "page") this.draft = newDraft();
    this.checkStartTag(tag);
    if (path.length === 1) {
      this.openRoot(tag);
      return;
    }
    const draft = this.draft;
    if (draft && tag.name === "text" && parent === "revision") {
      draft.textBytesAttr = tag.attributes.bytes === undefined ? null : String(tag.attributes.bytes);
      draft.textDeleted = tag.attributes.deleted !== undefined;
    } else if (draft && (tag.name === "contributor" || tag.name === "comment") && parent === "revision") {
      if (tag.attributes.deleted !== undefined)
        draft[tag.name === "comment" ? "commentHidden" : "contributorHidden"] = true;
    } else if (tag.name === PAGE_DELETED && parent === "page" && this.title !== null) {
      this.ready.push({ kind: "deleted", page: { title: this.title } });
    } else if (draft && tag.name === SUPPRESSED && parent === "revision") {
      draft.suppressed = true;
      draft.textBytesAttr = tag.attributes.bytes === undefined ? null : String(tag.attributes.bytes);
      draft.suppressedSha1 = tag.attributes.sha1 === undefined ? null : String(tag.attributes.sha1);
    }
    const capture =
      (parent === "page" && (tag.name === "title" || tag.name === "id")) ||
      (parent === "revision" && draft !== null) ||
      (parent === "contributor" && draft !== null);
    if (capture) {
      this.capturing = true;
      this.buffer.take();
      this.captureBytes = 0;
    }
  }

  /** A start tag read within one write is checked here, whole. */
  private checkStartTag(tag: SaxesTagPlain): void {
    const names = Object.keys(tag.attributes);
    if (names.length > MARKUP.maxAttributes)
      throw new ExportFormatError(
        `<${tag.name}> has more than ${MARKUP.maxAttributes} attributes, at line ${this.parser.line}${this.where()}`,
      );
    if ([tag.name, ...names].some((name) => name.length > MARKUP.maxNameChars))
      throw new ExportFormatError(
        `a name longer than ${MARKUP.maxNameChars} characters, at line ${this.parser.line}${this.where()}`,
      );
    // Values over the bound were cut short as they were read; saxes keeps the rest while the element is open.
    if (Object.values(tag.attributes).reduce((n, v) => n + v.length, 0) > MARKUP.maxAttributeChars) {
      for (const name of names) tag.attributes[name] = "";
      this.attributesTooBig(tag.name);
    }
  }

  private openRoot(tag: SaxesTagPlain): void {
    this.checkEncoding();
    if (tag.name !== "mediawiki") throw new ExportFormatError(`root element is <${tag.name}>, not <mediawiki>`);
    const version = String(tag.attributes.version ?? "");
    if (!SUPPORTED_SCHEMAS.has(version))
      throw new ExportFormatError(`export schema version ${JSON.stringify(version)} is not supported (0.10 or 0.11)`);
    this.sawRoot = true;
  }

  /** Character data, from saxes's events and taken between writes; CDATA counts as text. */
  text(chunk: string): void {
    if (!this.capturing) return;
    this.captureBytes += chunk.length;
    // Length in UTF-16 units bounds UTF-8 bytes from below; stop buffering well past the limit.
    if (this.captureBytes > LIMITS.page.maxRevisionBytes) {
      const element = this.path[this.path.length - 1];
      if (this.draft && (element === "text" || element === SUPPRESSED)) this.draft.textOversized = true;
      return;
    }
    this.buffer.append(chunk);
  }

  comment(tail: string): void {
    this.tooLong("comment", tail.length);
    this.dropped.comment = 0;
  }

  processinginstruction(pi: { target: string; body: string }): void {
    if (pi.target.length > MARKUP.maxNameChars)
      throw new ExportFormatError(
        `a name longer than ${MARKUP.maxNameChars} characters, at line ${this.parser.line}${this.where()}`,
      );
    this.tooLong("instruction", pi.body.length);
    this.dropped.instruction = 0;
  }

  closetag(tag: { name: string }): void {
    this.path.pop();
    const parent = this.path[this.path.length - 1];
    if (this.capturing) this.endCapture(tag.name, parent);
    if (tag.name === "revision" && parent === "page" && this.draft) {
      const item = toRevision(this.title, this.draft);
      if (item.kind === "revision" && this.pageId !== null) item.revision.wikiPageId = this.pageId;
      this.ready.push(item);
      this.draft = null;
    }
    if (tag.name === "page" && parent === "mediawiki") this.title = null;
  }

  private endCapture(name: string, parent: string | undefined): void {
    this.capturing = false;
    const { text: value, utf8Bytes } = this.buffer.take();
    const draft = this.draft;
    if (parent === "page" && name === "title") this.title = value;
    else if (parent === "page" && name === "id") this.pageId = /^[1-9]\d{0,15}$/.test(value) ? Number(value) : null;
    else if (draft && parent === "revision" && name === TAG) draft.tags.push(value);
    else if (draft && parent === "revision") {
      if (draft.fields.has(name) && name !== "minor") draft.problem ??= `duplicate <${name}>`;
      else draft.fields.set(name, value);
      if (name === "text" || name === SUPPRESSED) draft.textBytes = utf8Bytes;
    } else if (draft && parent === "contributor" && (name === "username" || name === "ip")) draft.contributor = value;
  }

  /** After each write: take, drop or refuse what saxes holds before it grows past two writes' worth. */
  bound(): void {
    const parser = this.parser;
    const held = heldBy(parser);
    if (held.nameChars > MARKUP.maxNameChars || (held.kind === "markup" && held.chars > MARKUP.maxNameChars)) {
      throw new ExportFormatError(
        `a name, entity reference or XML declaration longer than ${MARKUP.maxNameChars} characters, at line ${parser.line}${this.where()}`,
      );
    }
    if (held.attributes > MARKUP.maxAttributes)
      throw new ExportFormatError(
        `<${held.element}> has more than ${MARKUP.maxAttributes} attributes, at line ${parser.line}${this.where()}`,
      );
    if (held.attributeChars > MARKUP.maxAttributeChars) {
      this.attributesTooBig(held.element);
      if (held.kind === "attribute") takeHeld(parser);
    }
    if (held.kind === "doctype") {
      this.dropped.doctype += takeHeld(parser).length;
      this.tooLong("doctype", 0);
    }
    if (held.chars < WRITE_CHARS) return;
    switch (held.kind) {
      case "text":
      case "cdata":
        this.text(takeHeld(parser));
        return;
      case "comment":
      case "instruction":
        this.dropped[held.kind] += takeHeld(parser).length;
        this.tooLong(held.kind, 0);
        return;
      // Bounded by the checks above (a name, a doctype, an element's attributes), or nothing held.
      case "attribute":
      case "doctype":
      case "markup":
      case "none":
        return;
    }
  }

  checkEncoding(): void {
    const { encoding } = this.parser.xmlDecl;
    if (encoding && !/^utf-?8$/i.test(encoding))
      throw new ExportFormatError(`the export declares encoding ${encoding}; only UTF-8 is supported`);
  }

  /** Where the parser is, for errors: the page and revision being read, if any. */
  private where(): string {
    if (this.title === null && this.draft === null) return "";
    const id = this.draft?.fields.get("id");
    return ` (in page ${JSON.stringify(this.title ?? "?")}${this.draft ? ` revision ${id ?? "?"}` : ""})`;
  }

  /** A node too big to hold: the revision it is in cannot be stored; outside a revision, nothing can be trusted. */
  private tooBig(reason: string): void {
    if (this.draft) this.draft.problem ??= reason;
    else throw new ExportFormatError(`${reason}, at line ${this.parser.line}${this.where()}`);
  }

  private tooLong(kind: keyof typeof DROPPED_NODE, tail: number): void {
    if (this.dropped[kind] + tail > LIMITS.page.maxRevisionBytes)
      this.tooBig(`${DROPPED_NODE[kind]} is longer than page.maxRevisionBytes (${LIMITS.page.maxRevisionBytes} bytes)`);
  }

  private attributesTooBig(element: string | null): void {
    this.tooBig(`the attribute values of <${element ?? "?"}> are longer than ${MARKUP.maxAttributeChars} characters`);
  }
}

export async function* readMediaWikiExport(text: AsyncIterable<string>): AsyncGenerator<ExportItem> {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const parse = new ExportParse(parser);
  // saxes stores each handler as `this[name] = handler`; V8 turns an object given
  // more than 7 properties that way into a dictionary, which makes every parser
  // state 3 times slower. So: these 7 and no more (the XML declaration is read
  // from parser.xmlDecl, attributes from saxes-held.ts).
  parser.on("error", (err) => parse.error(err));
  parser.on("opentag", (tag) => parse.opentag(tag));
  parser.on("text", (chunk) => parse.text(chunk));
  parser.on("cdata", (chunk) => parse.text(chunk));
  parser.on("comment", (tail) => parse.comment(tail));
  parser.on("processinginstruction", (pi) => parse.processinginstruction(pi));
  parser.on("closetag", (tag) => parse.closetag(tag));

  for await (const chunk of text) {
    for (let at = 0; at < chunk.length; at += WRITE_CHARS) {
      parser.write(chunk.length <= WRITE_CHARS ? chunk : chunk.slice(at, at + WRITE_CHARS));
      parse.bound();
      while (parse.ready.length > 0) yield parse.ready.shift()!;
    }
  }
  parser.close();
  while (parse.ready.length > 0) yield parse.ready.shift()!;
  parse.checkEncoding();
  if (!parse.sawRoot) throw new ExportFormatError("the input is empty or has no <mediawiki> root element");
}
