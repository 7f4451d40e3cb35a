/**
 * What saxes (pinned at 6.0.0) holds between two writes, read from its
 * internals so the export reader can bound it. saxes keeps the node it is
 * reading (character data, a CDATA section, a comment, a processing
 * instruction, the DOCTYPE, an attribute value) in one string until the node
 * ends, however long it is, and it appends one small string per line break,
 * so a node of line breaks costs ~32 bytes a character until it is flattened.
 * The reader looks here after every write and takes what saxes holds, or
 * refuses the input, before either grows past a bound.
 *
 * @example
 * parser.write(chunk);
 * const held = heldBy(parser);
 * if (held.kind === "text" && held.chars >= 65_536) onText(takeHeld(parser));
 */
import type { SaxesParser } from "saxes";

/**
 * - `text`, `cdata`: character data; the reader may take it and use it.
 * - `attribute`: an attribute value; saxes needs it whole (see `attributeChars`).
 * - `comment`, `instruction`, `doctype`: never used by the reader; taken, it is dropped.
 * - `markup`: an XML declaration field; saxes needs it whole, so it can only be bounded.
 * - `none`: nothing of the kind above is being read.
 */
export type HeldKind = "text" | "cdata" | "attribute" | "comment" | "instruction" | "doctype" | "markup" | "none";

export interface Held {
  kind: HeldKind;
  /** UTF-16 units saxes holds of that node. */
  chars: number;
  /** UTF-16 units of the longest name or entity reference saxes holds (it needs those whole). */
  nameChars: number;
  /** The element whose start tag is being read, if one is. */
  element: string | null;
  /** Attributes of that element read so far, and their values' UTF-16 units, the one being read included. */
  attributes: number;
  attributeChars: number;
}

/** saxes.js's `S_*` state numbers, grouped by what `this.text` holds in them. */
const KIND_OF_STATE = new Map<number, HeldKind>([
  ...[2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((s): [number, HeldKind] => [s, "doctype"]), // S_DOCTYPE … S_DTD_PI_ENDING
  [13, "text"], // S_TEXT
  ...[17, 18, 19].map((s): [number, HeldKind] => [s, "comment"]), // S_COMMENT, S_COMMENT_ENDING, S_COMMENT_ENDED
  ...[20, 21, 22].map((s): [number, HeldKind] => [s, "cdata"]), // S_CDATA, S_CDATA_ENDING, S_CDATA_ENDING_2
  ...[25, 26].map((s): [number, HeldKind] => [s, "instruction"]), // S_PI_BODY, S_PI_ENDING
  ...[27, 28, 29, 30, 31, 32, 33].map((s): [number, HeldKind] => [s, "markup"]), // S_XML_DECL_*
  ...[40, 42].map((s): [number, HeldKind] => [s, "attribute"]), // S_ATTRIB_VALUE_QUOTED, S_ATTRIB_VALUE_UNQUOTED
]);
const S_ENTITY = 14;

interface SaxesInternals {
  state: number;
  entityReturnState: number | undefined;
  text: string;
  name: string;
  piTarget: string;
  entity: string;
  tag: { name: string } | null;
  attribList: Array<{ value: string }>;
}

const internals = (parser: SaxesParser) => parser as unknown as SaxesInternals;

export function heldBy(parser: SaxesParser): Held {
  const p = internals(parser);
  // Inside an entity reference, `text` is still the node the reference is part of.
  const state = p.state === S_ENTITY ? (p.entityReturnState ?? S_ENTITY) : p.state;
  const kind = KIND_OF_STATE.get(state) ?? "none";
  const chars = kind === "none" ? 0 : p.text.length;
  // Attributes wait in attribList until their start tag ends; then saxes empties it.
  const attributes = p.attribList.length;
  let attributeChars = kind === "attribute" ? chars : 0;
  for (const a of p.attribList) attributeChars += a.value.length;
  return {
    kind,
    chars,
    nameChars: Math.max(p.name.length, p.piTarget.length, p.entity.length),
    element: attributes > 0 || kind === "attribute" ? (p.tag?.name ?? null) : null,
    attributes,
    attributeChars,
  };
}

/**
 * Takes what saxes holds of the node being read. Not for `markup`, which
 * saxes still needs; an `attribute` value taken is lost to saxes, so take it
 * only to drop it.
 */
export function takeHeld(parser: SaxesParser): string {
  const p = internals(parser);
  const taken = p.text;
  p.text = "";
  return taken;
}
