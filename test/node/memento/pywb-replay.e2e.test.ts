/**
 * pywb 2.10 (PyPI), installed into a temporary venv, replays the archive
 * as a remote Memento source: a collection whose index is
 * pywb's `memento` index source, its TimeGate the archive's page URL (the
 * page is its own TimeGate), its replay URL the page's `?at=`, and its
 * TimeMap the archive's link-format TimeMap. pywb takes its candidates from
 * the Link header of the TimeGate's redirect, picks the one closest to the
 * time asked (by absolute distance, the earlier on a tie), and loads it
 * through `?at=`, which must carry Memento-Datetime. Every replayed body
 * must be the revision the archive's documented choice gives for that
 * candidate, never the suppressed one.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "../../../src/tools/local/local-worker.ts";
import { describeNeeding } from "../support/requirements.ts";
import { PIP_INSTALL_TIMEOUT_MS, pypiVenv } from "../support/pypi-venv.ts";
import {
  NEEDS,
  PAGE,
  around,
  askedTimes,
  currentAt,
  sha256,
  startArchive,
  wayback,
  type Archive,
  type Rev,
} from "./support/memento-clients.ts";

/** The memento pywb replays for `at`: the closest of the candidates the TimeGate's redirect links, loaded through `?at=`. */
function pywbChoice(revs: Rev[], at: number): Rev {
  const chosen = currentAt(revs, at);
  const nav = around(revs, chosen);
  const candidates = [
    ...new Set([chosen, nav.first, nav.prev, nav.next, nav.last].filter((r): r is Rev => r !== null)),
  ].sort((a, b) => a.ts - b.ts || a.id - b.id);
  let best = candidates[0]!;
  for (const c of candidates) if (Math.abs(c.ts - at) < Math.abs(best.ts - at)) best = c;
  return currentAt(revs, best.ts);
}

describeNeeding(NEEDS, "pywb replays the archive as a Memento source", () => {
  let archive: Archive;
  let pywb: ChildProcess | undefined;
  let pywbUrl = "";
  let dir = "";
  let log = "";

  beforeAll(async () => {
    const [started, venv] = await Promise.all([startArchive(), pypiVenv(["pywb==2.10.*"])]);
    archive = started;
    dir = await mkdtemp(join(tmpdir(), "palimpsest-pywb-"));
    const base = archive.worker.url;
    await writeFile(
      join(dir, "config.yaml"),
      [
        "collections:",
        "  palimpsest:",
        "    index:",
        "      type: memento",
        '      timegate_url: "{url}"',
        `      timemap_url: "${base}/timemap/link/${PAGE}"`,
        '      replay_url: "{url}?at={timestamp}"',
        "",
      ].join("\n"),
    );
    const port = await freePort();
    pywbUrl = `http://127.0.0.1:${port}`;
    pywb = spawn(venv.bin("wayback"), ["--port", String(port), "--bind", "127.0.0.1"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    pywb.stdout!.on("data", (d: Buffer) => (log += d.toString()));
    pywb.stderr!.on("data", (d: Buffer) => (log += d.toString()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (pywb.exitCode !== null) throw new Error(`wayback exited ${pywb.exitCode}: ${log.slice(-2_000)}`);
      const up = await fetch(`${pywbUrl}/palimpsest/`).then(
        (r) => r.status < 500,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline) throw new Error(`wayback did not answer in 60 s: ${log.slice(-2_000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }, PIP_INSTALL_TIMEOUT_MS + 240_000);

  afterAll(async () => {
    pywb?.kill("SIGTERM");
    await archive?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it("replays the right revision's bytes at 12 datetimes, the suppressed revision's time resolving to a visible neighbour", async () => {
    const times = askedTimes(archive);
    expect(times.length).toBeGreaterThanOrEqual(10);
    for (const { what, at } of times) {
      const want = pywbChoice(archive.revs, at);
      // id_: the capture's own bytes, not rewritten for the browser.
      const res = await fetch(`${pywbUrl}/palimpsest/${wayback(at)}id_/${archive.original}`);
      const body = new Uint8Array(await res.arrayBuffer());
      expect(res.status, `${what}: ${log.slice(-1_500)}`).toBe(200);
      expect(sha256(body), `${what}: revision ${want.id}'s body`).toBe(want.sha256);
      expect(want.id).not.toBe(archive.suppressed.id);
      // pywb states the capture's time: the revision's own.
      expect(res.headers.get("memento-datetime"), what).toBe(new Date(want.ts * 1000).toUTCString());
    }
    // At the suppressed revision's own second pywb lands on one of its visible neighbours.
    const { seq } = archive.suppressed;
    expect([archive.revs[seq - 1]!.id, archive.revs[seq + 1]!.id]).toContain(
      pywbChoice(archive.revs, archive.suppressed.ts).id,
    );
  }, 240_000);

  it("lists the captures from the archive's link-format TimeMap (pywb's CDX API)", async () => {
    const res = await fetch(`${pywbUrl}/palimpsest/cdx?url=${encodeURIComponent(archive.original)}&output=json`);
    expect(res.status, log.slice(-1_500)).toBe(200);
    const lines = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { timestamp: string; url: string });
    expect(lines.map((l) => l.timestamp)).toEqual(archive.revs.map((r) => wayback(r.ts)));
    expect(new Set(lines.map((l) => l.url))).toEqual(new Set([archive.original]));
  }, 60_000);
});
