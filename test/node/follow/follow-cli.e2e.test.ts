/**
 * `palimpsest follow` against a real MediaWiki 1.39 (test/node/support/mediawiki.ts)
 * and a real local archive: edits, a `--once` pass, more edits, a follower
 * killed mid-pass and resumed, a second follower refused; after each, every
 * followed page's revisions in the archive equal the wiki's (ids, text,
 * SHA-1), with none missing and none twice.
 */
import { spawn } from "node:child_process";
import { createReadStream, existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { decodeUtf8, readMediaWikiExport } from "../../../src/tools/import/mediawiki-reader.ts";
import { REPO_ROOT } from "../../../src/tools/local/local-worker.ts";
import { mediaWikiForThisFile, NO_MEDIAWIKI, type MediaWiki } from "../support/mediawiki.ts";
import { describeNeeding } from "../support/requirements.ts";
import { importHarnessForThisFile, type HistoryEntry } from "../tools/import/support/import-cli-harness.ts";
import { expectArchiveEqualsWiki } from "./support/archive-equals-wiki.ts";
import { firstEdits } from "./support/first-edits.ts";
import { followArgs } from "./support/follower-process.ts";

const CLI = join(REPO_ROOT, "src/tools/cli/palimpsest.js");

describeNeeding(NO_MEDIAWIKI, "palimpsest follow keeps the archive in step with a real MediaWiki", () => {
  const wiki: MediaWiki = mediaWikiForThisFile();
  const h = importHarnessForThisFile();
  const cursor = () => join(h.scratch, "follow-cursor.json");
  const args = (...extra: string[]) => followArgs(wiki.apiUrl, h.archive, cursor(), ...extra);
  const follow = (...extra: string[]) => h.runCli(args(...extra), { peakRss: true });

  const passOf = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, number | string>;

  it("follows edits with --once, resumes after a kill mid-pass with no gap and no duplicate, and refuses a second follower", async () => {
    const admin = await wiki.admin();
    const titles = await firstEdits(wiki, "Followed page", "Ünïcode — 東京/sub page");

    const first = await follow("--once");
    expect(first.code, first.stderr).toBe(0);
    const firstPass = passOf(first.stdout);
    expect(firstPass).toMatchObject({ revisions: 6, skipped: 0 });
    expect(await expectArchiveEqualsWiki(wiki, h.archive.url, titles)).toBe(6);
    console.log(
      `follow --once, first sight of ${titles.length} pages: ${first.ms} ms, peak RSS ${Math.round(first.peakRss! / 2 ** 20)} MiB`,
    );

    // Nothing new: a pass stores nothing (the overlap is read again, and nothing is stored twice).
    const idle = passOf((await follow("--once")).stdout);
    expect(idle).toMatchObject({ revisions: 0 });

    // Many more edits, then a follower killed as soon as it has moved its cursor once.
    for (let n = 0; n < 12; n++) {
      titles.push(`Batch page ${n}`);
      await admin.edit({ title: `Batch page ${n}`, text: `page ${n}, first`, summary: `create ${n}` });
      await admin.edit({ title: `Batch page ${n}`, text: `page ${n}, second`, summary: `edit ${n}` });
      if (n % 3 === 0) await admin.edit({ title: "Followed page", text: `followed, edit ${n}`, summary: `n=${n}` });
    }
    const before = readFileSync(cursor(), "utf8");
    const killed = await new Promise<{ code: number | null; signal: string | null; cursorMoved: boolean }>(
      (resolve) => {
        const child = spawn(process.execPath, [CLI, ...args("--once", "--changes-per-request", "3")], {
          cwd: h.scratch,
          stdio: "ignore",
        });
        const poll = setInterval(() => {
          if (existsSync(cursor()) && readFileSync(cursor(), "utf8") !== before) child.kill("SIGKILL");
        }, 5);
        child.on("exit", (code, signal) => {
          clearInterval(poll);
          resolve({ code, signal, cursorMoved: readFileSync(cursor(), "utf8") !== before });
        });
      },
    );
    expect(killed).toMatchObject({ signal: "SIGKILL", cursorMoved: true });
    // The lock of the killed follower is taken over; this pass finishes the job.
    const resumed = await follow("--once", "--changes-per-request", "3");
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await expectArchiveEqualsWiki(wiki, h.archive.url, titles)).toBe(6 + 12 * 2 + 4);

    // Two followers on one cursor: the second is refused while the first runs.
    const running = spawn(process.execPath, [CLI, ...args("--interval", "1")], {
      cwd: h.scratch,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      await new Promise<void>((resolve) => running.stdout.once("data", () => resolve())); // its first pass is done
      const second = await follow("--once");
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/another follower \(pid \d+\) holds .*\.lock/);
    } finally {
      running.kill("SIGTERM");
    }
  }, 600_000);

  it("keeps up with a steady stream of edits (the follower's lag)", async () => {
    const admin = await wiki.admin();
    const pages = ["Lag 1", "Lag 2", "Lag 3", "Lag 4"];
    const follower = spawn(process.execPath, [CLI, ...args("--interval", "1")], {
      cwd: h.scratch,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    follower.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const edited = new Map<number, number>(); // revid → when the wiki had saved it
    const arrived = new Map<number, number>(); // revid → when the archive first listed it
    let editing = true;
    const watch = (async () => {
      while (editing || arrived.size < edited.size) {
        for (const page of pages) {
          const res = await fetch(
            `${h.archive.url}/page/${encodeURIComponent(page.replace(/ /g, "_"))}/history?limit=20`,
          );
          if (res.status !== 200) {
            await res.arrayBuffer();
            continue;
          }
          for (const r of (await res.json<{ revisions: HistoryEntry[] }>()).revisions)
            if (!arrived.has(r.id)) arrived.set(r.id, Date.now());
        }
        await new Promise((r) => setTimeout(r, 200));
        if (arrived.size >= edited.size && !editing) break;
      }
    })();
    try {
      const EDITS = 40;
      for (let n = 0; n < EDITS; n++) {
        const revid = await admin.edit({ title: pages[n % pages.length]!, text: `edit ${n}`, summary: `lag ${n}` });
        edited.set(revid, Date.now());
        await new Promise((r) => setTimeout(r, 250));
      }
      editing = false;
      await Promise.race([
        watch,
        new Promise((_, reject) => setTimeout(() => reject(new Error(`not all edits arrived: ${stderr}`)), 120_000)),
      ]);
    } finally {
      editing = false;
      follower.kill("SIGTERM");
    }
    const lags = [...edited].map(([id, at]) => arrived.get(id)! - at).sort((a, b) => a - b);
    expect(lags.every((lag) => Number.isFinite(lag))).toBe(true);
    const pick = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!;
    console.log(
      `follower lag over ${lags.length} edits (one every 250 ms plus the edit, --interval 1): median ${pick(0.5)} ms, p95 ${pick(0.95)} ms, max ${lags.at(-1)} ms`,
    );
  }, 300_000);

  it("follows moves (one renamed twice while the follower is down), revision deletion and page deletion", async () => {
    const admin = await wiki.admin();
    const readStatus = async (title: string, id: number) => {
      const res = await h.readRevision(title, id);
      await res.arrayBuffer();
      return res.status;
    };
    const archivedIds = async (title: string) => {
      const res = await fetch(
        `${h.archive.url}/page/${encodeURIComponent(title.replace(/ /g, "_"))}/history?limit=500`,
      );
      if (res.status !== 200) return (await res.arrayBuffer(), res.status);
      return (await res.json<{ revisions: HistoryEntry[] }>()).revisions.map((r) => r.id).reverse();
    };
    const once = async () => {
      const run = await follow("--once");
      expect(run.code, run.stderr).toBe(0);
      return run;
    };

    const moved = [
      await admin.edit({ title: "Move me", text: "before the move", summary: "one" }),
      await admin.edit({ title: "Move me", text: "before the move, again", summary: "two" }),
    ];
    const twice = [await admin.edit({ title: "Twice A", text: "renamed twice", summary: "made" })];
    const hidden = [
      await admin.edit({ title: "Revdel page", text: "public", summary: "one" }),
      await admin.edit({ title: "Revdel page", text: "oops, a secret", summary: "two" }),
      await admin.edit({ title: "Revdel page", text: "public again", summary: "three" }),
    ];
    const doomed = [await admin.edit({ title: "Delete me", text: "soon gone", summary: "made" })];
    await once();

    // Follower down: a move through the API, two through moveBatch.php, a revision deletion, a page deletion.
    await admin.move("Move me", "Moved page", "rename");
    await wiki.maintenance("moveBatch", ["-u", wiki.adminName, "-r", "first", await listFile("Twice A|Twice B")]);
    await wiki.maintenance("moveBatch", ["-u", wiki.adminName, "-r", "second", await listFile("Twice B|Twice C")]);
    await admin.revisionDelete([hidden[1]!], { hide: ["content"] }, "secret");
    await wiki.maintenance("deleteBatch", ["-u", wiki.adminName, "-r", "gone", await listFile("Delete me")]);
    const second = await once();
    expect(second.stderr).toBe("");

    // The moved history under its new title, equal to the wiki's; the old title keeps its history and
    // gets the redirect MediaWiki left there as its next revision.
    await expectArchiveEqualsWiki(wiki, h.archive.url, ["Moved page", "Twice C"]);
    const redirect = (await admin.revisions("Move me")).at(-1)!;
    expect(redirect.text).toMatch(/^#REDIRECT \[\[Moved page\]\]/);
    expect(await archivedIds("Move me")).toEqual([...moved, redirect.revid]);
    // MediaWiki adds a null revision ("moved page …") to the moved page; the archive has it too.
    expect(await archivedIds("Moved page")).toEqual([...moved, (await admin.revisions("Moved page")).at(-1)!.revid]);
    const redirectA = (await admin.revisions("Twice A")).at(-1)!;
    const redirectB = (await admin.revisions("Twice B")).at(-1)!;
    expect(await archivedIds("Twice A")).toEqual([...twice, redirectA.revid]);
    expect(await archivedIds("Twice B")).toEqual([redirectB.revid]);
    expect(redirectB.text).toMatch(/Twice C/);
    // Revision deletion of content: suppressed in the archive (410), its neighbours readable.
    expect(await Promise.all(hidden.map((id) => readStatus("Revdel page", id)))).toEqual([200, 410, 200]);
    // A page deleted on the wiki is deleted here too: 410 to the public, its revisions kept for the undeletion.
    expect(await Promise.all(doomed.map((id) => readStatus("Delete me", id)))).toEqual([410]);
    expect((await fetch(`${h.archive.url}/page/Delete_me/history`)).status).toBe(410);

    // Shown again, and the page restored.
    await admin.revisionDelete([hidden[1]!], { show: ["content"] }, "not secret after all");
    await admin.undelete("Delete me", "back");
    await once();
    expect(await Promise.all(hidden.map((id) => readStatus("Revdel page", id)))).toEqual([200, 200, 200]);
    await expectArchiveEqualsWiki(wiki, h.archive.url, ["Revdel page", "Delete me"]);

    // The archive's export against dumpBackup.php --full, page for page and revision for revision (id, parent, text,
    // sha1), but for the old titles of moves, where the archive keeps the history before the redirect.
    const ours = join(h.scratch, "followed-export.xml");
    const exported = await h.runCli([
      "export",
      ours,
      "--url",
      h.archive.url,
      "--token",
      h.archive.token,
      "--no-progress",
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const theirs = join(h.scratch, "followed-dumpBackup.xml");
    await wiki.dump(theirs);
    const [fromArchive, fromWiki] = await Promise.all([revisionsByTitle(ours), revisionsByTitle(theirs)]);
    const movedFrom = new Set(["Move me", "Twice A", "Twice B"]);
    const withoutParent = (revs: unknown[]) => revs.map((r) => ({ ...(r as object), parentId: undefined }));
    // The redirect is the old title's latest in both (its parent in the archive is the history before it).
    for (const title of movedFrom)
      expect(withoutParent(fromArchive.get(title)!.slice(-1))).toEqual(withoutParent(fromWiki.get(title)!));
    for (const title of movedFrom) {
      fromArchive.delete(title);
      fromWiki.delete(title);
    }
    expect(fromArchive).toEqual(fromWiki);
  }, 300_000);

  /** Each page's revisions in an export file: id, parent, sha1 and text (or that the text is hidden). */
  async function revisionsByTitle(file: string): Promise<Map<string, unknown[]>> {
    const pages = new Map<string, unknown[]>();
    for await (const item of readMediaWikiExport(decodeUtf8(createReadStream(file)))) {
      if (item.kind === "problem") throw new Error(`${file}: ${item.problem}`);
      if (item.kind === "deleted") continue;
      const { title, id, parentId, sha1, text } = item.revision;
      pages.set(title, [...(pages.get(title) ?? []), { id, parentId, sha1, text }]);
    }
    return pages;
  }

  async function listFile(...lines: string[]): Promise<string> {
    const file = join(h.scratch, `list-${Math.random().toString(36).slice(2)}.txt`);
    await writeFile(file, `${lines.join("\n")}\n`);
    return file;
  }
});
