/**
 * The archive's title rule is MediaWiki's for every character the archive
 * strips: two titles MediaWiki keeps apart are never one page here. Where
 * the archive will not take a title MediaWiki accepts, it refuses it (the
 * importer and the follower then skip that page by name); it never folds it
 * into another.
 */
import { describe, expect, it } from "vitest";
import { normalizeTitle } from "../../../src/page/title.ts";

const key = (raw: string) => {
  const t = normalizeTitle(raw);
  return t.ok ? t.key : null;
};

describe("titles MediaWiki folds into one are one here", () => {
  it.each([
    ["LRM", "Foo\u200E"],
    ["RLM", "F\u200Foo"],
    ["LRE..RLO (U+202A-U+202E)", "\u202AF\u202Bo\u202Co\u202D\u202E"],
    ["underscore", "Foo_"],
    ["no-break space", "Foo\u00A0"],
    ["ideographic space", "\u3000Foo"],
    ["lower-case first letter", "foo"],
    ["decomposed form (MediaWiki's input is NFC)", "Fo\u006F"],
  ])("%s: the same page as Foo", (_, raw) => {
    expect(key(raw)).toBe("Foo");
  });
});

describe("titles MediaWiki keeps apart are never folded into one here", () => {
  it.each([
    ["first strong isolate U+2068", "Foo\u2068"],
    ["left-to-right isolate U+2066", "Foo\u2066"],
    ["pop directional isolate U+2069", "Fo\u2069o"],
    ["Arabic letter mark U+061C", "Foo\u061C"],
    ["zero-width space U+200B", "Foo\u200B"],
    ["word joiner U+2060", "Foo\u2060"],
    ["tag character U+E0041", "Foo\u{E0041}"],
    ["cancel tag U+E007F", "Foo\u{E007F}"],
    ["variation selector 16 after a letter", "Foo\uFE0F"],
    ["variation selector 1", "Foo\uFE00"],
    ["ideographic variation selector U+E0100", "Foo\u{E0100}"],
    ["Mongolian free variation selector U+180B", "Foo\u180B"],
  ])("%s: refused, naming the code point", (_, raw) => {
    const t = normalizeTitle(raw);
    expect(t.ok).toBe(false);
    expect(t.ok ? "" : t.reason).toMatch(/U\+[0-9A-F]{4,5}/);
  });

  it("keeps emoji presentation after an emoji, as a page of its own", () => {
    expect(key("\u2764\uFE0F")).toBe("\u2764\uFE0F");
    expect(key("\u2764")).toBe("\u2764");
  });
});
