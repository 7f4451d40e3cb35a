/**
 * MediaWiki → Palimpsest against a real wiki: a throwaway
 * MediaWiki 1.39 (test/node/support/mediawiki.ts) is edited through its
 * Action API and maintenance scripts, `dumpBackup.php --full` writes its
 * history, `palimpsest import` loads the file into a local archive, and every
 * revision's text, SHA-1, timestamp, contributor, comment and parent is
 * compared with what the wiki's own API says (prop=revisions).
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { mediaWikiForThisFile, NO_MEDIAWIKI, type WikiRevision } from "../../support/mediawiki.ts";
import { mediaWikiSha1 } from "../../support/mediawiki-export.ts";
import { describeNeeding } from "../../support/requirements.ts";
import { importHarnessForThisFile, summaryOf, type HistoryEntry } from "./support/import-cli-harness.ts";

const MAIN = "Palimpsest dump test";
/** Odd but legal: a subpage, Unicode needing NFC, an apostrophe, an ampersand, quotes, a dash. */
const ODD = 'Zürich’s café/東京 & "quotes" — naïve';
const TALK = "Talk:Palimpsest dump test";
/** Written by maintenance/edit.php, not the API. */
const SCRIPTED = "Edited by a maintenance script";

describeNeeding(NO_MEDIAWIKI, "dumpBackup.php output from a real MediaWiki imports with nothing changed", () => {
  const wiki = mediaWikiForThisFile();
  const h = importHarnessForThisFile();

  const archived = async (title: string): Promise<HistoryEntry[]> => {
    const history = await h.history(title);
    expect(history, `history of ${title}`).not.toBeNull();
    return history!.reverse();
  };

  const readText = async (title: string, id: number): Promise<string> => {
    const res = await h.readRevision(title, id);
    expect(res.status, `revision ${id} of ${title}`).toBe(200);
    return res.text();
  };

  it("every revision's text, sha1, timestamp, contributor, comment and parent match the wiki's API", async () => {
    console.log(`MediaWiki setup (install.php + php -S answering): ${wiki.setupMs} ms`);
    const admin = await wiki.admin();
    const ids: Record<string, number[]> = { [MAIN]: [], [ODD]: [], [TALK]: [] };
    const edit = async (title: string, text: string, summary: string, minor = false) =>
      ids[title]!.push(await admin.edit({ title, text, summary, minor }));

    await edit(MAIN, "First version.\n\n== Heading ==\nSome text with <b>markup</b> & entities &amp; more.", "create");
    await edit(MAIN, "First version.\n\n== Heading ==\nSome text, revised.", "revise the heading's text");
    await edit(MAIN, "First version.\n\n== Heading ==\nSome text, revised. Typo fixed.", "typo", true);
    ids[MAIN]!.push(
      await wiki.anonymous().edit({ title: MAIN, text: "An IP's edit.\n\nFirst version.", summary: "by IP" }),
    );
    await edit(MAIN, "Back to words.\n\n{{template|x=1}}\n[[Link|label]]", "");
    await edit(MAIN, "", "blanked"); // an empty revision: <text bytes="0"/>
    await edit(MAIN, "Restored after blanking.", "restore");

    await edit(ODD, "Ünïcödé text: 日本語, emoji 🙂, combining e\u0301, RTL שלום.", "création — “quoted” summary");
    await edit(ODD, "Ünïcödé text, second: 日本語 ✓", "zweite Fassung");
    await edit(TALK, "Discussion starts. ~~~~", "talk page");
    await edit(TALK, "Discussion starts. ~~~~\n:Reply.", "reply", true);
    await wiki.maintenance("edit", ["--user", wiki.adminName, "--summary", "by edit.php", SCRIPTED], {
      input: "Text saved by maintenance/edit.php.",
    });
    await wiki.maintenance("edit", ["--user", wiki.adminName, "--summary", "second, minor", "--minor", SCRIPTED], {
      input: "Text saved by maintenance/edit.php, twice.",
    });

    // Revision deletion: hide the text of a middle revision (MediaWiki refuses to hide the latest's).
    const hidden = ids[MAIN]![1]!;
    await admin.revisionDelete([hidden], { hide: ["content"] }, "test: hide a revision's text");

    const dump = join(h.scratch, "dumpBackup-full.xml");
    const dumpStarted = Date.now();
    await wiki.dump(dump);
    const dumpMs = Date.now() - dumpStarted;

    const result = await h.runImport(dump, ["--on-error", "skip"]);
    const summary = summaryOf(result);
    // Four pages (MediaWiki's own Main Page too), every revision; the hidden one without its text.
    const titles = ["Main Page", MAIN, ODD, TALK, SCRIPTED];
    const wikiRevisions = new Map<string, WikiRevision[]>();
    for (const title of titles) wikiRevisions.set(title, await admin.revisions(title));
    const total = [...wikiRevisions.values()].reduce((n, revs) => n + revs.length, 0);
    expect(summary).toMatchObject({ pages: titles.length, revisions: total, skipped: 0 });
    console.log(
      `dumpBackup.php --full: ${dumpMs} ms; palimpsest import: ${result.ms} ms for ${total} revisions (${summary.raw_bytes} bytes)`,
    );

    for (const title of titles) {
      const fromWiki = wikiRevisions.get(title)!;
      const inArchive = await archived(title);
      expect(
        inArchive.map((r) => r.id),
        title,
      ).toEqual(fromWiki.map((r) => r.revid));
      for (const [i, rev] of fromWiki.entries()) {
        const got = inArchive[i]!;
        const where = `${title} revision ${rev.revid}`;
        expect(got.timestamp, where).toBe(rev.timestamp);
        expect(got.contributor, where).toBe(rev.user);
        expect(got.comment, where).toBe(rev.comment);
        // Every parent is the wiki's: the hidden revision is held without its text.
        expect(got.parentId, where).toBe(rev.parentid === 0 ? null : rev.parentid);
        if (rev.texthidden) {
          expect(got.suppressed, where).toBe(true);
          expect((await h.readRevision(title, rev.revid)).status, where).toBe(410);
          continue;
        }
        expect(got.sha1, where).toBe(rev.sha1);
        const text = await readText(title, rev.revid);
        expect(text, where).toBe(rev.text);
        expect(mediaWikiSha1(text), where).toBe(rev.sha1);
      }
    }
    expect(wikiRevisions.get(MAIN)!.some((r) => r.texthidden && r.revid === hidden)).toBe(true);
    const ipEdit = wikiRevisions.get(MAIN)!.find((r) => r.anon);
    expect(ipEdit?.user).toMatch(/^127\.0\.0\.1$|^::1$/);
    expect(wikiRevisions.get(MAIN)!.filter((r) => r.minor)).toHaveLength(1);
  }, 600_000);
});
