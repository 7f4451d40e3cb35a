/**
 * A page with a long history is read across Cron Trigger passes, never in
 * one unbounded run: a pass that meets its deadline with the page's history
 * still to read stores what it read and ends (`more`), its cursor where it
 * was; the next pass goes on from the archive's latest revision of that
 * page; once the page is whole, the cursor moves past the change. Here the
 * deadline is past from the start (a pass "started" `follow.cronPassSeconds`
 * ago), so each pass reads one answer of the page's history.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import "../../../src/codec/install-worker.ts";
import { wikiFollowerOf } from "../../../src/bindings.ts";
import { runCronPass } from "../../../src/follow/cron-pass.ts";
import { LIMITS } from "../../../src/limits.ts";
import { app } from "../../../workers/app.ts";
import { withWiki } from "./support/follow-env.ts";
import { scriptedWiki } from "./support/scripted-wiki.ts";

async function ids(key: string): Promise<number[]> {
  const res = await app.fetch(
    new Request(`http://archive.test/page/${key}/history?limit=50`),
    env,
    createExecutionContext(),
  );
  if (res.status === 404) return [];
  return (await res.json<{ revisions: Array<{ id: number }> }>()).revisions.map((r) => r.id).reverse();
}

describe("a long page history and the cron pass's deadline", () => {
  it("is stored answer by answer across passes, the cursor moving only once the page is whole", async () => {
    const WIKI = "https://long.wiki.example/w/api.php";
    const wiki = scriptedWiki(3);
    for (let id = 1; id <= 7; id++) wiki.edit("Long history", 30, id);
    const late = () => Date.now() - LIMITS.follow.cronPassSeconds * 1000 - 1;
    const pass = () => runCronPass(withWiki(WIKI), { fetch: wiki.fetch, now: late });
    const follower = wikiFollowerOf(env, WIKI);

    const seen: Array<{ stored: number[]; more: boolean; rcid: number | null }> = [];
    for (let n = 0; n < 3; n++) {
      const result = await pass();
      expect(result.kind).toBe("done");
      const outcome = result.kind === "done" ? result.record.outcome : null;
      expect(outcome?.ok, JSON.stringify(outcome)).toBe(true);
      seen.push({
        stored: await ids("Long_history"),
        more: outcome?.ok === true && outcome.more,
        rcid: (await follower.cursor())?.rcid ?? null,
      });
    }
    expect(seen).toEqual([
      { stored: [1, 2, 3], more: true, rcid: null },
      { stored: [1, 2, 3, 4, 5], more: true, rcid: null },
      { stored: [1, 2, 3, 4, 5, 6, 7], more: false, rcid: 7 },
    ]);
  });
});
