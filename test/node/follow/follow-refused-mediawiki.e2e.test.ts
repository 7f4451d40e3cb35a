/**
 * `palimpsest follow` against a real MediaWiki 1.39 (test/node/support/mediawiki.ts)
 * and a real local archive, with a page the archive refuses: MediaWiki takes
 * a title with U+200B (ZERO WIDTH SPACE) in it, the archive does not
 * (src/page/title.ts refuses invisible characters). The follower records the
 * page in `<cursor>.skipped.json` with its wiki page id and the archive's
 * problem code, skips it, moves its cursor, and stores the pages after it,
 * in that pass and the next.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { SkippedPage } from "../../../src/follow/follower.ts";
import { mediaWikiForThisFile, NO_MEDIAWIKI, type MediaWiki } from "../support/mediawiki.ts";
import { describeNeeding } from "../support/requirements.ts";
import { importHarnessForThisFile } from "../tools/import/support/import-cli-harness.ts";
import { followArgs } from "./support/follower-process.ts";

describeNeeding(NO_MEDIAWIKI, "palimpsest follow and a real MediaWiki page the archive refuses", () => {
  const wiki: MediaWiki = mediaWikiForThisFile();
  const h = importHarnessForThisFile();
  const cursor = () => join(h.scratch, "refused-mw-cursor.json");
  const follow = (...extra: string[]) => h.runCli(followArgs(wiki.apiUrl, h.archive, cursor(), ...extra));
  const ids = async (title: string) => ((await h.history(title)) ?? []).map((r) => r.id).reverse();

  it("skips a U+200B title MediaWiki took, lists it, and goes on with the next page and the next pass", async () => {
    const admin = await wiki.admin();
    const refused = "Zero\u200Bwidth page";
    await admin.edit({ title: refused, text: "invisible in the title", summary: "zwsp" });
    await admin.edit({ title: "After the refused page", text: "one", summary: "first" });
    const fromWiki = await admin.revisions(refused);
    expect(fromWiki, "MediaWiki keeps the title with U+200B").toHaveLength(1);

    const first = await follow("--once");
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout.trim().split("\n").at(-1)!)).toMatchObject({ refused: 1, skippedPages: 1 });
    expect(first.stderr).toMatch(/skipped page "Zero\u200Bwidth page": invalid_title: .*U\+200B/);
    const after = await admin.revisions("After the refused page");
    expect(await ids("After the refused page")).toEqual(after.map((r) => r.revid));

    const skipped = JSON.parse(readFileSync(`${cursor()}.skipped.json`, "utf8")) as SkippedPage[];
    expect(skipped).toEqual([
      expect.objectContaining({ title: refused, revisionIds: [], code: "invalid_title", pageId: expect.any(Number) }),
    ]);
    const listed = await follow("--skipped");
    expect(
      listed.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as SkippedPage).title),
    ).toEqual([refused]);

    // More edits, to both pages: the follower stores the one it can and keeps the other listed, once.
    await admin.edit({ title: "After the refused page", text: "one, two", summary: "second" });
    await admin.edit({ title: refused, text: "still invisible", summary: "zwsp again" });
    const second = await follow("--once");
    expect(second.code, second.stderr).toBe(0);
    const afterNow = await admin.revisions("After the refused page");
    expect(afterNow).toHaveLength(2);
    expect(await ids("After the refused page")).toEqual(afterNow.map((r) => r.revid));
    const still = JSON.parse(readFileSync(`${cursor()}.skipped.json`, "utf8")) as SkippedPage[];
    expect(still.map((s) => s.title)).toEqual([refused]);
  }, 180_000);
});
