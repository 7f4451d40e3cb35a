/**
 * One page the archive refuses never stops the deployment's follower: the
 * Cron Trigger pass (src/follow/cron-pass.ts) against a scripted wiki, with
 * the real archive (PageStore, write schema) and the WikiFollower's SQLite.
 * A title the archive refuses (U+200B) and a revision it refuses (a
 * contributor's name with U+200B) are recorded and skipped, the cursor
 * moves past them, the page's later revisions are stored chained around
 * the refused one, `GET /api/follow` lists them to an operator (403 to a
 * write-only token), and `POST /api/follow/retry` has the next pass try
 * them again: one that now goes through leaves the list, one refused again
 * stays with the new reason. The dashboard's follower page lists them.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import "../../../src/codec/install-worker.ts";
import { wikiFollowerOf } from "../../../src/bindings.ts";
import { runCronPass } from "../../../src/follow/cron-pass.ts";
import type { FollowRetryBody, FollowStatusBody } from "../../../src/wire.ts";
import { app } from "../../../workers/app.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import { dashboard, login } from "../dashboard/support/dashboard.ts";
import { withWiki } from "./support/follow-env.ts";
import { scriptedWiki } from "./support/scripted-wiki.ts";

const ORIGIN = "http://archive.test";
const api = (wiki: string, path: string, init: RequestInit = {}) =>
  Promise.resolve(app.fetch(new Request(`${ORIGIN}${path}`, init), withWiki(wiki), createExecutionContext()));

async function history(key: string): Promise<Array<{ id: number; parentId: number | null }>> {
  const res = await app.fetch(new Request(`${ORIGIN}/page/${key}/history?limit=50`), env, createExecutionContext());
  if (res.status === 404) return [];
  expect(res.status).toBe(200);
  return (await res.json<{ revisions: Array<{ id: number; parentId: number | null }> }>()).revisions.reverse();
}

async function status(wiki: string): Promise<Extract<FollowStatusBody, { wiki: string }>> {
  const res = await api(wiki, "/api/follow", { headers: bearer(TOKENS.purge) });
  expect(res.status).toBe(200);
  return await res.json<Extract<FollowStatusBody, { wiki: string }>>();
}

describe("the cron follower and a page the archive refuses", () => {
  it("records and skips a refused title and a refused revision, moves its cursor, and goes on next pass", async () => {
    const WIKI = "https://skips.wiki.example/w/api.php";
    const wiki = scriptedWiki();
    wiki.edit("Zero\u200Bwidth", 10, 100);
    wiki.edit("Chained page", 11, 200);
    wiki.edit("Chained page", 11, 201, "Mallory\u200B"); // the archive refuses this contributor's name
    wiki.edit("Chained page", 11, 202);
    wiki.edit("Plain page", 12, 300);

    const first = await runCronPass(withWiki(WIKI), { fetch: wiki.fetch });
    expect(first.kind).toBe("done");
    if (first.kind !== "done") return;
    expect(first.record.outcome).toMatchObject({ ok: true, refused: 2, revisions: 3 });
    expect((await history("Plain_page")).map((r) => [r.id, r.parentId])).toEqual([[300, null]]);
    // The refused middle revision is left out; the next one is stored as the child of the archive's latest.
    expect((await history("Chained_page")).map((r) => [r.id, r.parentId])).toEqual([
      [200, null],
      [202, 200],
    ]);
    const s = await status(WIKI);
    expect(s.cursor?.rcid).toBe(5);
    expect(s.skipped).toHaveLength(2);
    expect(s.skipped.find((k) => k.title === "Zero\u200Bwidth")).toMatchObject({
      pageId: 10,
      revisionIds: [],
      code: "invalid_title",
      reason: expect.stringContaining("U+200B"),
    });
    expect(s.skipped.find((k) => k.title === "Chained page")).toMatchObject({
      pageId: 11,
      revisionIds: [201],
      code: "invalid_contributor",
      retryAskedMs: null,
    });
    // The dashboard's follower page lists them too, as text.
    const signed = await login();
    const html = await (
      await dashboard("/dashboard/follow", { headers: { cookie: signed.cookie } }, { FOLLOW_WIKI_API: WIKI })
    ).text();
    const row = /<tr data-skipped="Chained page">(.*?)<\/tr>/s.exec(html)?.[1] ?? "";
    expect(row).toContain("<td>201</td>");
    expect(row).toContain("<code>invalid_contributor</code>");
    expect(html).toContain('<tr data-skipped="Zero\u200Bwidth">');

    // The follower carries on: the next edit is stored, and the skipped pages do not fail the pass.
    wiki.edit("Plain page", 12, 301);
    const second = await runCronPass(withWiki(WIKI), { fetch: wiki.fetch });
    expect(second.kind === "done" && second.record.outcome).toMatchObject({ ok: true });
    expect((await history("Plain_page")).map((r) => r.id)).toEqual([300, 301]);
    expect((await status(WIKI)).cursor?.rcid).toBe(6);
  });

  it("lists skips to an operator only: 403 to a write-only token, for the status and the retry", async () => {
    const WIKI = "https://scopes.wiki.example/w/api.php";
    const get = await api(WIKI, "/api/follow", { headers: bearer(TOKENS.write) });
    expect(get.status).toBe(403);
    await get.arrayBuffer();
    const retry = await api(WIKI, "/api/follow/retry", {
      method: "POST",
      headers: { ...bearer(TOKENS.write), "content-type": "application/json" },
      body: JSON.stringify({ all: true }),
    });
    expect(retry.status).toBe(403);
    await retry.arrayBuffer();
    const operator = await api(WIKI, "/api/follow", { headers: bearer(TOKENS.operator) });
    expect(operator.status).toBe(200);
    expect(await operator.json()).toMatchObject({ wiki: WIKI, skipped: [] });
  });

  it("retries on request: one that goes through leaves the list, one refused again stays with the new reason", async () => {
    const WIKI = "https://retry.wiki.example/w/api.php";
    const wiki = scriptedWiki();
    wiki.edit("Tail page", 20, 400);
    wiki.edit("Tail page", 20, 401, "Renamed\u200B"); // refused, and the page's newest
    wiki.edit("Middle page", 21, 500);
    wiki.edit("Middle page", 21, 501, "Renamed\u200B"); // refused, with a later revision stored after it
    wiki.edit("Middle page", 21, 502);
    wiki.edit("Zero\u200Bagain", 22, 600);
    const pass = () => runCronPass(withWiki(WIKI), { fetch: wiki.fetch });
    await pass();
    expect((await status(WIKI)).skipped.map((s) => s.title).sort()).toEqual([
      "Middle page",
      "Tail page",
      "Zero\u200Bagain",
    ]);

    const unknown = await api(WIKI, "/api/follow/retry", {
      method: "POST",
      headers: { ...bearer(TOKENS.purge), "content-type": "application/json" },
      body: JSON.stringify({ title: "No such page" }),
    });
    expect(unknown.status).toBe(404);
    await unknown.arrayBuffer();

    // The cause is fixed on the wiki's side: the user was renamed to a name the archive takes.
    for (const title of ["Tail page", "Middle page"])
      for (const r of wiki.pages.get(title)!.revisions) r.user = "Renamed";
    const asked = await api(WIKI, "/api/follow/retry", {
      method: "POST",
      headers: { ...bearer(TOKENS.purge), "content-type": "application/json" },
      body: JSON.stringify({ all: true }),
    });
    expect(asked.status).toBe(202);
    expect(await asked.json<FollowRetryBody>()).toEqual({ wiki: WIKI, asked: 3 });
    expect((await status(WIKI)).skipped.every((s) => s.retryAskedMs !== null)).toBe(true);

    const retried = await pass();
    expect(retried.kind === "done" && retried.record.outcome).toMatchObject({ ok: true, retried: 3 });
    expect((await history("Tail_page")).map((r) => [r.id, r.parentId])).toEqual([
      [400, null],
      [401, 400],
    ]);
    const left = (await status(WIKI)).skipped;
    expect(left.map((s) => s.title).sort()).toEqual(["Middle page", "Zero\u200Bagain"]);
    // Revision 501 cannot come in any more: 502 was stored as the child of 500.
    expect(left.find((s) => s.title === "Middle page")).toMatchObject({
      revisionIds: [501],
      code: "parent_mismatch",
      reason: expect.stringContaining("later revisions"),
      retryAskedMs: null,
    });
    expect(left.find((s) => s.title === "Zero\u200Bagain")).toMatchObject({
      code: "invalid_title",
      retryAskedMs: null,
    });
  });

  it("keeps at most follow.maxSkippedPages records, the newest", async () => {
    const stub = wikiFollowerOf(env, "https://bound.wiki.example/w/api.php");
    const { LIMITS } = await import("../../../src/limits.ts");
    const max = LIMITS.follow.maxSkippedPages;
    for (let i = 0; i < max + 5; i++)
      await stub.recordSkip({
        title: `Page ${i}`,
        pageId: i,
        revisionIds: [i],
        code: "c",
        reason: "r",
        atMs: 1000 + i,
      });
    const kept = await stub.skipped();
    expect(kept).toHaveLength(max);
    expect(kept[0]!.title).toBe(`Page ${max + 4}`);
    expect(kept.at(-1)!.title).toBe("Page 5");
  }, 60_000);
});
