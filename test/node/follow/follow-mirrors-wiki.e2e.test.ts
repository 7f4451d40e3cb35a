/**
 * Acceptance: the archive's public view equals the wiki's. `palimpsest
 * follow` against a real MediaWiki 1.39 (test/node/support/mediawiki.ts)
 * and a real local archive, through a scripted sequence in rounds, some
 * with `--once`, some with a standing `--interval 1` follower SIGKILLed
 * mid-pass: look-alike titles of each class (one MediaWiki strips, so the
 * same page there and here; ones the archive refuses, recorded as skipped,
 * whose texts reach no archived page; a no-break space MediaWiki folds),
 * revision deletion of comment, user and content on stored revisions and on
 * revisions hidden before the follower first read them (stored without
 * what they hide, keeping id, parent and time), shown again (filled in), a
 * page deletion and its undeletion with the follower killed between them,
 * a refused title with several revisions. After every round, the archive
 * read anonymously equals the wiki read anonymously
 * (test/node/follow/support/public-view.ts). At the end a backup export of
 * the archive, imported into a fresh archive, shows the same, and exports
 * the same bytes again.
 *
 * MediaWiki 1.39's limits on what a follower can mirror (read in its source):
 * - a revision deletion or page deletion done as a suppression (oversight,
 *   `suppress=yes`) is logged in the suppression log, a private log
 *   ($wgLogRestrictions) that ManualLogEntry::publish never adds to recent
 *   changes, for anyone: no follower sees it, so the archive goes on
 *   showing what an oversighter hid (this test uses the public deletion log);
 * - deleting a page removes its edits from recent changes
 *   (LinksDeletionUpdate; only log entries stay) and an undeletion does not
 *   bring them back: the follower learns of the restored history from the
 *   `delete/restore` log entry alone;
 * - revision deletion refuses to hide the text of a page's current revision
 *   (`revdelete-hide-current`), so the texts hidden here are never the latest.
 */
import { join } from "node:path";
import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import type { SkippedPage } from "../../../src/follow/follower.ts";
import type { HistoryEntry } from "../../../src/page/types.ts";
import { mediaWikiForThisFile, NO_MEDIAWIKI, type MediaWiki, type WikiSession } from "../support/mediawiki.ts";
import { describeNeeding } from "../support/requirements.ts";
import { summaryOf } from "../tools/import/support/import-cli-harness.ts";
import { exportSummaryOf, runExport, twoArchivesForThisFile } from "../tools/export/support/export-harness.ts";
import { followArgs, readCursor, startFollower, type StandingFollower } from "./support/follower-process.ts";
import { keyOf, publicViewOf, type PublicView } from "./support/public-view.ts";

/** The page every look-alike imitates, and a second one for the no-break space (MediaWiki folds it to a space). */
const LOOKALIKE = "Lookalike";
const SPACED = "Lookalike x";
/** Differ from "Lookalike" by one character MediaWiki strips (U+200E): the same page there, and here. */
const STRIPPED = "Look\u200Ealike";
/** Differs from "Lookalike x" by a no-break space, which MediaWiki (and the archive) fold to a space. */
const NO_BREAK = "Lookalike\u00A0x";
/** Differ from "Lookalike" by one character MediaWiki keeps and the archive refuses (never strips). */
const REFUSED_LOOKALIKES = {
  "U+2066": "Look\u2066alike",
  "U+061C": "Look\u061Calike",
  "U+200B": "Look\u200Balike",
  "U+E0041": "Look\u{E0041}alike",
  "U+FE0F": "Looka\uFE0Flike",
} as const;
/** A refused title with a history that grows over the rounds. */
const ZERO_WIDTH = "Zero\u200Bwidth history";

describeNeeding(NO_MEDIAWIKI, "the archive's public view equals the wiki's, as a follower keeps it", () => {
  const wiki: MediaWiki = mediaWikiForThisFile();
  const { a, b } = twoArchivesForThisFile();
  const view = publicViewOf(wiki, [0, 1]);
  const cursor = () => join(a().scratch, "mirror-cursor.json");
  const args = (...extra: string[]) => followArgs(wiki.apiUrl, a().archive, cursor(), ...extra);
  /** Canonical titles this test wrote (the wiki's form), for the deleted-page checks. */
  const made = new Set<string>(["Main Page"]);
  /** Refused titles that exist on the wiki by now. */
  const refused = new Set<string>();
  const timings: string[] = [];

  async function edit(title: string, text: string, summary: string, by: "admin" | "anonymous" = "admin") {
    const session = by === "admin" ? await wiki.admin() : wiki.anonymous();
    const id = await session.edit({ title, text, summary });
    if (Object.values(REFUSED_LOOKALIKES).includes(title as never) || title === ZERO_WIDTH) refused.add(title);
    else if (title !== STRIPPED && title !== NO_BREAK) made.add(title);
    return id;
  }

  /** The newest recent change an anonymous reader sees (what a caught-up follower's cursor names). */
  async function latestRcid(): Promise<number> {
    const res = await wiki.anonymous().get<{ query: { recentchanges: Array<{ rcid: number }> } }>({
      action: "query",
      list: "recentchanges",
      rctype: "edit|new|log",
      rcprop: "ids",
      rcdir: "older",
      rclimit: 1,
    });
    return res.query.recentchanges[0]!.rcid;
  }

  /** Log entries anonymous recent changes list (a page deletion removes edits from them, never log entries). */
  async function logChanges(): Promise<number> {
    const res = await wiki.anonymous().get<{ query: { recentchanges: unknown[] } }>({
      action: "query",
      list: "recentchanges",
      rctype: "log",
      rcprop: "ids",
      rclimit: "max",
    });
    return res.query.recentchanges.length;
  }

  /**
   * Runs a logged action (a deletion, undeletion, revision deletion) and waits for its log entry in recent
   * changes: MediaWiki adds it after its answer is sent (ManualLogEntry::publish, POSTSEND), so a follower
   * reading right after the answer may not see it yet, and this test would call a follower caught up too soon.
   */
  async function logged(action: (admin: WikiSession) => Promise<void>): Promise<void> {
    const before = await logChanges();
    await action(await wiki.admin());
    for (const until = Date.now() + 30_000; (await logChanges()) <= before;) {
      if (Date.now() > until) throw new Error("the log entry did not reach recent changes within 30 s");
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function once() {
    const run = await a().runCli(args("--once"));
    expect(run.code, run.stderr).toBe(0);
    return run;
  }

  /** `follow --skipped`: one JSON line per recorded page. */
  async function skipped(): Promise<SkippedPage[]> {
    const run = await a().runCli(args("--skipped"));
    expect(run.code, run.stderr).toBe(0);
    return run.stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as SkippedPage);
  }

  /** A standing follower (`--interval 1`), killed once its cursor is inside this round's changes and before their end. */
  async function killMidPass(roundStart: number): Promise<string> {
    const last = await latestRcid();
    const follower = startFollower(args("--interval", "1", "--changes-per-request", "2"), a().scratch, cursor());
    const at = await follower.waitForCursor((c) => c.rcid > roundStart);
    const exit = await follower.kill("SIGKILL");
    expect(exit.signal).toBe("SIGKILL");
    const left = readCursor(cursor())!;
    expect(left.rcid, "killed mid-pass: changes of this round were still to store").toBeLessThan(last);
    return `killed at rcid ${at.rcid} of ${roundStart + 1}..${last}`;
  }

  /** Waits until a standing follower's pass has stored every change the wiki shows now. */
  async function caughtUp(follower: StandingFollower): Promise<void> {
    const last = await latestRcid();
    await follower.waitForPass((p) => p.rcid !== null && p.rcid >= last);
    expect(follower.stderr()).not.toMatch(/this pass failed/);
  }

  /** After every round: the archive's public view equals the wiki's, and the refused pages are all recorded. */
  async function expectMirrors(round: string): Promise<PublicView> {
    const seen = await view.expectEqual(a().archive.url, { refused, made });
    // Every refused title the wiki has is recorded as skipped, for its title; nothing else is.
    const anon = wiki.anonymous();
    const records = await skipped();
    expect(records.map((s) => s.title).sort(), `${round}: the skipped pages`).toEqual([...refused].sort());
    for (const record of records) {
      expect(record, `${round}: ${JSON.stringify(record.title)} refused for its title`).toMatchObject({
        code: "invalid_title",
        revisionIds: [],
      });
      const info = await anon.get<{ query: { pages: Array<{ pageid: number }> } }>({
        action: "query",
        prop: "info",
        titles: record.title,
      });
      expect(record.pageId).toBe(info.query.pages[0]!.pageid);
    }
    // No text of a refused page reaches any archived page.
    for (const title of refused)
      for (const rev of await anon.revisions(title))
        for (const [where, text] of seen.texts)
          expect(text.includes(rev.text!), `${round}: ${JSON.stringify(title)}'s text found in ${where}`).toBe(false);
    return seen;
  }

  const history = async (title: string) => {
    const res = await fetch(`${a().archive.url}/page/${encodeURIComponent(keyOf(title))}/history?limit=500`);
    expect(res.status).toBe(200);
    return (await res.json<{ revisions: HistoryEntry[] }>()).revisions.reverse();
  };

  async function round(name: string, body: () => Promise<string | void>): Promise<void> {
    const started = Date.now();
    const note = await body();
    const seen = await expectMirrors(name);
    timings.push(
      `${name}: ${Date.now() - started} ms (${seen.titles.length} pages, ${seen.revisions} revisions: ` +
        `${seen.textHidden} text, ${seen.commentHidden} comment, ${seen.userHidden} user hidden; ` +
        `${seen.deleted.length} deleted; ${refused.size} refused)${note ? `; ${note}` : ""}`,
    );
  }

  it("after every round, and after a backup's export and import, an anonymous reader sees the same in both", async () => {
    const admin = await wiki.admin();
    const ids: Record<string, number[]> = {};
    const make = async (title: string, count: number, by?: (i: number) => "admin" | "anonymous") => {
      const revs: number[] = (ids[title] = []);
      for (let i = 1; i <= count; i++)
        revs.push(await edit(title, `${title}, revision ${i}`, `${title} r${i}`, by?.(i) ?? "admin"));
    };

    await round("round 1 (--once, first sight)", async () => {
      // Look-alikes: distinct texts; the stripped one and the no-break space are edits of another page.
      await make(LOOKALIKE, 1);
      const viaStripped = await edit(STRIPPED, "edited through U+200E: this is Lookalike", "via U+200E");
      for (const [name, title] of Object.entries(REFUSED_LOOKALIKES))
        await edit(title, `the look-alike with ${name}, its own text`, `look-alike ${name}`);
      await make(SPACED, 1);
      const viaNoBreak = await edit(NO_BREAK, "edited through U+00A0: this is Lookalike x", "via U+00A0");
      await edit("Talk:Lookalike", "talk of the real Lookalike", "talk");
      // The wiki itself: U+200E and U+00A0 name the same page; every other look-alike is a page of its own.
      expect((await admin.revisions(LOOKALIKE)).map((r) => r.revid)).toEqual([...ids[LOOKALIKE]!, viaStripped]);
      expect((await admin.revisions(SPACED)).map((r) => r.revid)).toEqual([...ids[SPACED]!, viaNoBreak]);
      for (const title of Object.values(REFUSED_LOOKALIKES)) expect(await admin.revisions(title)).toHaveLength(1);

      await make(ZERO_WIDTH, 2);
      await make("Revdel fields", 3);
      // Hidden before the follower first reads the page: a comment, an IP's user, a text.
      await make("Hidden fields before", 3, (i) => (i === 3 ? "anonymous" : "admin"));
      await logged((w) =>
        w.revisionDelete([ids["Hidden fields before"]![1]!], { hide: ["comment"] }, "comment, early"),
      );
      await logged((w) => w.revisionDelete([ids["Hidden fields before"]![2]!], { hide: ["user"] }, "user, early"));
      await make("Hidden text before", 3);
      await logged((w) => w.revisionDelete([ids["Hidden text before"]![1]!], { hide: ["content"] }, "text, early"));
      await make("Delete and restore", 2);
      await make("Suppress and show", 3);
      await make("Stays deleted", 2);
      const run = await once();
      expect(run.stderr).toMatch(/skipped page "Look\u2066alike": invalid_title: .*U\+2066/);

      // Stored without its text, keeping id, parent and time; its child's parent is it.
      const hiddenText = await history("Hidden text before");
      expect(hiddenText[1]).toMatchObject({ id: ids["Hidden text before"]![1], suppressed: true, textMissing: true });
      expect(hiddenText[2]!.parentId).toBe(ids["Hidden text before"]![1]);
      const early = await history("Hidden fields before");
      expect(early[1]).toMatchObject({ comment: "", commentHidden: true });
      expect(early[2]).toMatchObject({ contributor: "", contributorHidden: true });
    });

    await round("round 2 (--interval 1, SIGKILL mid-pass)", async () => {
      const start = await latestRcid();
      const [r1, r2, r3] = ids["Revdel fields"]!;
      await logged((w) => w.revisionDelete([r1!], { hide: ["comment"] }, "comment"));
      await logged((w) => w.revisionDelete([r2!], { hide: ["user"] }, "user"));
      await logged((w) => w.revisionDelete([r3!], { hide: ["comment", "user"] }, "both"));
      await edit(STRIPPED, "edited through U+200E again", "via U+200E again");
      await edit(REFUSED_LOOKALIKES["U+2066"], "the look-alike with U+2066, edited again", "again");
      await edit(ZERO_WIDTH, `${ZERO_WIDTH}, revision 3`, "zero width r3");
      for (let n = 1; n <= 4; n++) await edit(`Filler ${n}`, `filler ${n}`, `filler ${n}`);
      const killed = await killMidPass(start);
      // Changes made while the next follower runs, then a SIGKILL between its passes.
      const follower = startFollower(args("--interval", "1"), a().scratch, cursor());
      await edit(LOOKALIKE, "Lookalike, edited while the follower runs", "while running");
      await edit("Filler 1", "filler 1, again", "again");
      await caughtUp(follower);
      await follower.kill("SIGKILL");
      return killed;
    });

    await round("round 3 (a page deletion, the follower killed, the undeletion)", async () => {
      const follower = startFollower(args("--interval", "1"), a().scratch, cursor());
      ids["Delete and restore"]!.push(await edit("Delete and restore", "third, then deleted", "r3"));
      await logged((w) => w.delete("Delete and restore", "deleted on the wiki"));
      await caughtUp(follower);
      await follower.kill("SIGKILL");
      const deleted = await view.expectEqual(a().archive.url, { refused, made });
      expect(deleted.deleted).toEqual(["Delete and restore"]);
      await logged((w) => w.undelete("Delete and restore", "restored on the wiki"));
      await edit("Delete and restore", "edited after the undeletion", "r4");
      await once();
    });

    await round("round 4 (--once: a suppression, a text hidden before first sight)", async () => {
      await logged((w) => w.revisionDelete([ids["Suppress and show"]![1]!], { hide: ["content"] }, "suppressed"));
      await edit("Suppress and show", "Suppress and show, revision 4", "r4");
      await make("Hidden text late", 3);
      await logged((w) => w.revisionDelete([ids["Hidden text late"]![1]!], { hide: ["content", "comment"] }, "early"));
      await once();
      expect((await history("Suppress and show"))[1]).toMatchObject({ suppressed: true });
      expect((await history("Hidden text late"))[1]).toMatchObject({ textMissing: true, commentHidden: true });
    });

    await round("round 5 (--interval 1, SIGKILL mid-pass: shown again, a deletion)", async () => {
      const start = await latestRcid();
      await logged((w) => w.revisionDelete([ids["Suppress and show"]![1]!], { show: ["content"] }, "shown again"));
      // Never held by the archive: filled in from the wiki.
      await logged((w) => w.revisionDelete([ids["Hidden text before"]![1]!], { show: ["content"] }, "text shown"));
      await logged((w) => w.revisionDelete([ids["Hidden fields before"]![1]!], { show: ["comment"] }, "comment shown"));
      await logged((w) => w.revisionDelete([ids["Revdel fields"]![0]!], { show: ["comment"] }, "comment shown"));
      await edit(STRIPPED, "edited through U+200E a third time", "via U+200E, third");
      await edit(ZERO_WIDTH, `${ZERO_WIDTH}, revision 4`, "zero width r4");
      for (let n = 2; n <= 4; n++) await edit(`Filler ${n}`, `filler ${n}, again`, "again");
      const killed = await killMidPass(start);
      const follower = startFollower(args("--interval", "1"), a().scratch, cursor());
      await logged((w) => w.delete("Stays deleted", "gone for the rest of the test"));
      await edit(NO_BREAK, "edited through U+00A0 again", "via U+00A0 again");
      await caughtUp(follower);
      await follower.kill("SIGKILL");
      const shown = await history("Hidden text before");
      expect(shown[1]).toMatchObject({ suppressed: false });
      expect(shown[1]!.textMissing).toBeUndefined();
      return killed;
    });

    // A backup of the whole archive (its operator token carries the backup scope) into a fresh archive.
    const started = Date.now();
    const file = join(a().scratch, "mirror-backup.xml");
    const exported = exportSummaryOf(await runExport(a(), file));
    summaryOf(await b().runImport(file));
    const restored = await view.expectEqual(b().archive.url, { refused, made });
    expect(restored.deleted).toEqual(["Stays deleted"]);
    const again = join(b().scratch, "mirror-backup-again.xml");
    exportSummaryOf(await runExport(b(), again));
    expect(Buffer.compare(await readFile(again), await readFile(file)), "the restored archive's backup").toBe(0);
    timings.push(
      `backup export (${exported.pages} pages, ${exported.revisions} revisions), import, comparison, second export: ${Date.now() - started} ms`,
    );
    console.log(timings.join("\n"));
  }, 900_000);
});
