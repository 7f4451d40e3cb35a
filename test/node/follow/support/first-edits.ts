/**
 * The edits a follow test starts from, on a real MediaWiki: a page written,
 * edited (a minor edit) and edited again by an IP, a Unicode subpage, and
 * the page's talk page: six revisions with the wiki's Main Page.
 */
import type { MediaWiki } from "../../support/mediawiki.ts";

/** Makes the edits; gives the titles the wiki then holds, its Main Page first. */
export async function firstEdits(wiki: MediaWiki, page: string, subpage: string): Promise<string[]> {
  const admin = await wiki.admin();
  await admin.edit({ title: page, text: "one", summary: "first" });
  await admin.edit({ title: page, text: "one, two", summary: "second", minor: true });
  await wiki.anonymous().edit({ title: page, text: "one, two, three (by IP)", summary: "ip" });
  await admin.edit({ title: subpage, text: "ü 東京 🙂", summary: "unicode" });
  await admin.edit({ title: `Talk:${page}`, text: "talk", summary: "talk" });
  return ["Main Page", page, subpage, `Talk:${page}`];
}
