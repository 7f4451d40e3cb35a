/**
 * `palimpsest follow` never stops for one page: against a scripted wiki (an
 * HTTP server in this process, which can answer what a real MediaWiki
 * would not) and a real local archive. A title the archive refuses
 * (U+200B) and a page whose history the wiki answers past
 * follow.maxAnswerBytes are recorded in `<cursor>.skipped.json` and
 * skipped; the cursor moves past them, the other pages are stored, the
 * next pass goes on; `--skipped` lists them; `--retry` stores one whose
 * cause is gone and keeps one refused again. The oversized answer is cut
 * off as it streams, and no error quotes the wiki's bytes.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SkippedPage } from "../../../src/follow/follower.ts";
import { LIMITS } from "../../../src/limits.ts";
import { importHarnessForThisFile } from "../tools/import/support/import-cli-harness.ts";
import { scriptedWiki } from "../../workers/follow/support/scripted-wiki.ts";
import { followArgs } from "./support/follower-process.ts";

const wiki = scriptedWiki();
const edit = wiki.edit;
/** Titles whose history the wiki answers with bytes without end (until the follower hangs up). */
const endless = new Set<string>();
let endlessBytes = 0;

/** Spaces after a JSON opening, written as fast as the follower reads them, until it hangs up. */
function answerWithoutEnd(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.write('{"query":');
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  const pump = () => {
    while (!res.destroyed) {
      endlessBytes += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
  };
  res.on("close", () => res.destroy());
  pump();
}

let server: Server;
let wikiUrl: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url!, "http://wiki");
    if (endless.has(url.searchParams.get("titles") ?? "")) return answerWithoutEnd(res);
    void wiki
      .fetch(url)
      .then(async (answer) =>
        res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text()),
      );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  wikiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/w/api.php`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe("palimpsest follow and a page it cannot store", () => {
  const h = importHarnessForThisFile();
  const cursor = () => join(h.scratch, "refused-cursor.json");
  const follow = (...extra: string[]) =>
    h.runCli(followArgs(wikiUrl, h.archive, cursor(), ...extra), { peakRss: true });
  const skippedFile = () => JSON.parse(readFileSync(`${cursor()}.skipped.json`, "utf8")) as SkippedPage[];
  const ids = async (title: string) => ((await h.history(title)) ?? []).map((r) => r.id).reverse();

  it("records and skips a refused title and an oversized history, moves on, lists them, and retries them", async () => {
    edit("Zero\u200Bwidth", 10, 100);
    edit("Huge history", 11, 150);
    endless.add("Huge history");
    edit("Good page", 12, 200);

    const first = await follow("--once");
    expect(first.code, first.stderr).toBe(0);
    const pass = JSON.parse(first.stdout.trim()) as Record<string, unknown>;
    expect(pass).toMatchObject({ refused: 2, revisions: 1, skippedPages: 2, rcid: 3 });
    expect(await ids("Good page")).toEqual([200]);
    expect(JSON.parse(readFileSync(cursor(), "utf8"))).toMatchObject({ rcid: 3 });
    const lines = first.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^palimpsest: skipped page "Zero\u200Bwidth": invalid_title: .*U\+200B.*; recorded and skipped$/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^palimpsest: skipped page "Huge history": wiki_too_big: the wiki's answer is over follow\.maxAnswerBytes/,
      ),
    );
    // Cut off as it streamed: the wiki got rid of little more than the limit (socket buffers), and the follower held less.
    expect(endlessBytes).toBeLessThan(LIMITS.follow.maxAnswerBytes + 32 * 1024 * 1024);
    expect(first.peakRss).toBeLessThan(600 * 1024 * 1024);
    console.log(
      `oversized answer: ${(endlessBytes / 2 ** 20).toFixed(0)} MiB sent before the hang-up; CLI peak RSS ${(first.peakRss! / 2 ** 20).toFixed(0)} MiB`,
    );
    expect(skippedFile()).toEqual([
      expect.objectContaining({ title: expect.any(String), revisionIds: [] }),
      expect.objectContaining({ title: expect.any(String), revisionIds: [] }),
    ]);
    expect(Object.fromEntries(skippedFile().map((s) => [s.title, [s.pageId, s.code]]))).toEqual({
      "Zero\u200Bwidth": [10, "invalid_title"],
      "Huge history": [11, "wiki_too_big"],
    });

    // --skipped lists them, one JSON line each.
    const listed = await follow("--skipped");
    expect(listed.code).toBe(0);
    expect(
      listed.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as SkippedPage).title)
        .sort(),
    ).toEqual(["Huge history", "Zero\u200Bwidth"]);

    // The follower carries on.
    edit("Good page", 12, 201);
    const second = await follow("--once");
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout.trim())).toMatchObject({ rcid: 4, skippedPages: 2 });
    expect(await ids("Good page")).toEqual([200, 201]);

    // The wiki answers the long history properly now: a retry stores it; the title is still refused.
    endless.delete("Huge history");
    const retried = await follow("--retry", "all");
    expect(retried.code).toBe(1);
    const outcomes = retried.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { title: string; ok: boolean; code?: string });
    expect(Object.fromEntries(outcomes.map((o) => [o.title, o.ok]))).toEqual({
      "Huge history": true,
      "Zero\u200Bwidth": false,
    });
    expect(outcomes.find((o) => !o.ok)?.code).toBe("invalid_title");
    expect(await ids("Huge history")).toEqual([150]);
    expect(skippedFile().map((s) => s.title)).toEqual(["Zero\u200Bwidth"]);
    expect(existsSync(`${cursor()}.lock`)).toBe(false);
  }, 180_000);
});
