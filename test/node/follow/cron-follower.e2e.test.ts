/**
 * The deployment's follower (src/follow/cron-pass.ts) against a real
 * MediaWiki 1.39 (test/node/support/mediawiki.ts): a local archive whose
 * [vars] name the wiki, its Cron Trigger run through wrangler's
 * scheduled-event route (`/__scheduled`), as a developer runs it. After
 * edits, a pass makes the archive equal the wiki (ids, parents, text,
 * SHA-1), with its cursor in the WikiFollower Durable Object and its
 * outcome on `GET /api/follow`; after more edits, a move and a revision
 * deletion, two triggers at once store everything exactly once.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startLocalWorker, type LocalWorker } from "../../../src/tools/local/local-worker.ts";
import type { FollowStatusBody } from "../../../src/wire.ts";
import { mediaWikiForThisFile, NO_MEDIAWIKI, type MediaWiki } from "../support/mediawiki.ts";
import { describeNeeding } from "../support/requirements.ts";
import { expectArchiveEqualsWiki } from "./support/archive-equals-wiki.ts";
import { firstEdits } from "./support/first-edits.ts";

describeNeeding(NO_MEDIAWIKI, "the deployment's Cron Trigger follows a real MediaWiki", () => {
  const wiki: MediaWiki = mediaWikiForThisFile();
  let archive: LocalWorker;
  beforeAll(async () => {
    archive = await startLocalWorker({
      vars: { FOLLOW_WIKI_API: wiki.apiUrl, FOLLOW_CONTACT: "archive-tests@palimpsest.invalid" },
    });
  });
  afterAll(async () => {
    await archive?.stop();
  });

  async function status(): Promise<Extract<FollowStatusBody, { wiki: string }>> {
    const res = await fetch(`${archive.url}/api/follow`, { headers: { authorization: `Bearer ${archive.token}` } });
    expect(res.status).toBe(200);
    const body = await res.json<FollowStatusBody>();
    if (body.wiki === null) throw new Error("the archive follows no wiki");
    return body;
  }

  /** Runs the Cron Trigger as `wrangler dev --test-scheduled` does, and waits for the pass it started to be recorded. */
  async function trigger(times = 1): Promise<NonNullable<Awaited<ReturnType<typeof status>>["lastPass"]>> {
    const before = Date.now();
    const answers = await Promise.all(
      Array.from({ length: times }, () => fetch(`${archive.url}/__scheduled?cron=*+*+*+*+*`)),
    );
    for (const res of answers) {
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
      const s = await status();
      if (s.lastPass && s.lastPass.startedMs >= before - 1000 && s.running === null) return s.lastPass;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error("no pass was recorded within 120 s of the trigger");
  }

  it("answers GET /api/follow only with an operator's token", async () => {
    const res = await fetch(`${archive.url}/api/follow`);
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toMatch(/problem\+json/);
    const s = await status();
    expect(s.wiki).toBe(wiki.apiUrl);
  });

  it("a pass brings the archive to the wiki, keeps its cursor in the Durable Object, and reports its outcome", async () => {
    const titles = await firstEdits(wiki, "Cron page", "Ünïcode — 東京/cron");

    const pass = await trigger();
    expect(pass.outcome, JSON.stringify(pass.outcome)).toMatchObject({
      ok: true,
      revisions: 6,
      skipped: 0,
      more: false,
    });
    expect(await expectArchiveEqualsWiki(wiki, archive.url, titles)).toBe(6);
    const after = await status();
    expect(after.cursor?.wiki).toBe(wiki.apiUrl);
    expect(after.cursor?.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    console.log(`cron pass, first sight of ${titles.length} pages: ${pass.finishedMs - pass.startedMs} ms`);

    // Nothing new: the next pass reads the overlap again and stores nothing.
    expect((await trigger()).outcome).toMatchObject({ ok: true, revisions: 0 });
  }, 300_000);

  it("two triggers at once store every edit, move and revision deletion exactly once", async () => {
    const admin = await wiki.admin();
    // Moved before the follower saw it: the old title holds only the redirect MediaWiki left, as on the wiki.
    const titles = ["Cron page", "Cron to move", "Cron moved", "Cron revdel"];
    for (let n = 0; n < 6; n++) await admin.edit({ title: "Cron page", text: `edit ${n}`, summary: `n=${n}` });
    await admin.edit({ title: "Cron to move", text: "before the move", summary: "create" });
    await admin.move("Cron to move", "Cron moved", "renamed");
    const hidden = await admin.edit({ title: "Cron revdel", text: "secret", summary: "oops" });
    await admin.edit({ title: "Cron revdel", text: "clean", summary: "fixed" });
    // Stored first, then hidden on the wiki: the archive suppresses it.
    expect((await trigger()).outcome).toMatchObject({ ok: true });
    await admin.revisionDelete([hidden], { hide: ["content"] }, "private data");

    const pass = await trigger(2);
    expect(pass.outcome, JSON.stringify(pass.outcome)).toMatchObject({ ok: true });
    // Cron page 3 + 6, the redirect, the moved page, the revision-deleted page 2.
    expect(await expectArchiveEqualsWiki(wiki, archive.url, titles)).toBe(9 + 1 + 2 + 2);
    const hiddenRead = await fetch(`${archive.url}/page/Cron_revdel/${hidden}`);
    expect(hiddenRead.status).toBe(410);
    await hiddenRead.arrayBuffer();
  }, 300_000);
});
