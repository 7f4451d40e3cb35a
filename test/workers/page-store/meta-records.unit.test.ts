/**
 * A block's metadata record (src/page-store/meta-records.ts) says its format
 * in its first byte, 1, and decodes back to the entries it was made from; a
 * record in any other format is refused by name rather than misread.
 */
import "../../../src/codec/install-worker.ts";
import { describe, expect, it } from "vitest";
import {
  decodeMetaRecord,
  encodeMetaRecord,
  MetaRecordError,
  type MetaEntry,
} from "../../../src/page-store/meta-records.ts";

const entries: MetaEntry[] = [1, 2].map((i) => ({
  parentId: i === 1 ? null : i - 1,
  contributor: "Ann",
  comment: `edit ${i}`,
  model: "wikitext",
  format: "text/x-wiki",
  bytes: 10 * i,
  sha1: "phoiac9h4m842xq45sp7s6u21eteeq1",
  sha256: "0".repeat(64),
  tags: [],
}));

describe("metadata records", () => {
  it("are format 1 and decode to the entries they were made from", () => {
    const record = new Uint8Array(encodeMetaRecord(entries));
    expect(record[0]).toBe(1);
    expect(decodeMetaRecord(record)).toEqual(entries);
  });

  it("refuse a record of any other format, naming it", () => {
    const record = new Uint8Array(encodeMetaRecord(entries));
    for (const format of [0, 2, 255]) {
      const other = record.slice();
      other[0] = format;
      expect(() => decodeMetaRecord(other)).toThrow(MetaRecordError);
      expect(() => decodeMetaRecord(other)).toThrow(`metadata record format ${format} is not one this code reads`);
    }
  });
});
