/**
 * What the Memento client tests share: a local archive holding a corpus
 * history imported with `palimpsest import`, one of its revisions
 * suppressed, and the archive's documented choice worked out from the
 * history listing alone (docs/api.md, "Time travel"), so each test checks a real
 * client's answer against it: the latest visible revision current at the
 * time (existing from its effective time, the running maximum of the
 * timestamps), else the first visible one; first/prev/next/last are the
 * visible neighbours in (timestamp, append order).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { join } from "node:path";
import { REPO_ROOT, startLocalWorker, type LocalWorker } from "../../../../src/tools/local/local-worker.ts";
import { NO_PYTHON_VENV } from "../../support/pypi-venv.ts";
import { fileMissing, firstMissing } from "../../support/requirements.ts";

const run = promisify(execFile);

export const BIP_0340 = fileURLToPath(
  new URL("../../../../../shared/corpus/histories/bip-0340.xml.br", import.meta.url),
);
export const PAGE = "BIP_0340";

/** What the client tests need: a Python venv for the client, and the history (null when both are there). */
export const NEEDS = firstMissing(NO_PYTHON_VENV, fileMissing(BIP_0340, "the shared corpus history bip-0340"));

export interface Rev {
  id: number;
  /** Epoch seconds. */
  ts: number;
  /** Effective time: the latest timestamp up to this revision, in append order. */
  eff: number;
  seq: number;
  sha256: string;
  suppressed: boolean;
}

export interface Archive {
  worker: LocalWorker;
  /** Oldest first, as appended. */
  revs: Rev[];
  suppressed: Rev;
  /** The page's URL: the original resource and its TimeGate. */
  original: string;
  stop(): Promise<void>;
}

export const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** A worker holding bip-0340 (198 revisions, imported by the CLI), with one revision from the middle suppressed. */
export async function startArchive(): Promise<Archive> {
  const worker = await startLocalWorker({ vars: { ENVIRONMENT: "development" } });
  try {
    await run(
      "node",
      [
        join(REPO_ROOT, "src/tools/cli/palimpsest.js"),
        "import",
        BIP_0340,
        "--url",
        worker.url,
        "--token",
        worker.token,
        "--no-progress",
      ],
      { timeout: 150_000 },
    ).catch((err: { stderr?: string; signal?: string }) => {
      throw new Error(`palimpsest import failed (${err.signal ?? "exit"}): ${err.stderr?.slice(-2_000)}`);
    });
    const listing = await (
      await fetch(`${worker.url}/page/${PAGE}/history?limit=500`)
    ).json<{
      revisions: Array<{ id: number; timestamp: string; sha256: string }>;
    }>();
    let running = -Infinity;
    const revs: Rev[] = listing.revisions.reverse().map((r, i) => {
      const ts = Date.parse(r.timestamp) / 1000;
      running = Math.max(running, ts);
      return { id: r.id, ts, eff: running, seq: i, sha256: r.sha256, suppressed: false };
    });
    // One from the middle whose time is its own (no neighbour shares the second) and whose text differs from both neighbours'.
    const suppressed = revs.find(
      (r, i) =>
        i > revs.length / 2 &&
        revs[i - 1]!.ts < r.ts &&
        r.ts < revs[i + 1]!.ts &&
        r.sha256 !== revs[i - 1]!.sha256 &&
        r.sha256 !== revs[i + 1]!.sha256,
    )!;
    const res = await fetch(`${worker.url}/api/pages/${PAGE}/revisions/${suppressed.id}/suppression`, {
      method: "PUT",
      headers: { authorization: `Bearer ${worker.token}`, "content-type": "application/json" },
      body: JSON.stringify({ suppressed: true, reason: "a test takedown" }),
    });
    if (res.status !== 200) throw new Error(`suppressing ${suppressed.id}: ${res.status} ${await res.text()}`);
    suppressed.suppressed = true;
    return { worker, revs, suppressed, original: `${worker.url}/page/${PAGE}`, stop: () => worker.stop() };
  } catch (err) {
    await worker.stop();
    throw err;
  }
}

const visible = (revs: Rev[]) => revs.filter((r) => !r.suppressed);
const byTime = (a: Rev, b: Rev) => a.ts - b.ts || a.seq - b.seq;

/** The revision the archive says is current at `at` (epoch seconds). */
export function currentAt(revs: Rev[], at: number): Rev {
  const shown = visible(revs);
  return shown.filter((r) => r.eff <= at).at(-1) ?? shown[0]!;
}

/** A memento's visible first/prev/next/last, in (timestamp, append order). */
export function around(revs: Rev[], self: Rev): { first: Rev; prev: Rev | null; next: Rev | null; last: Rev } {
  const line = visible(revs).sort(byTime);
  const at = line.indexOf(self);
  return { first: line[0]!, prev: line[at - 1] ?? null, next: line[at + 1] ?? null, last: line.at(-1)! };
}

/** The datetimes the tests ask for: before, at and after the ends, inside a same-second run, between revisions, and at the suppressed one's time. */
export function askedTimes(archive: Archive): Array<{ what: string; at: number }> {
  const { revs, suppressed } = archive;
  const first = revs[0]!;
  const last = revs.at(-1)!;
  const run = revs.find((r, i) => i > 0 && revs[i - 1]!.ts === r.ts && !revs[i - 1]!.suppressed && !r.suppressed);
  const times = [
    { what: "a year before the first revision", at: first.ts - 365 * 86_400 },
    { what: "the first revision's second", at: first.ts },
    { what: "the suppressed revision's second", at: suppressed.ts },
    { what: "one second after the suppressed revision", at: suppressed.ts + 1 },
    { what: "one second before the suppressed revision", at: suppressed.ts - 1 },
    { what: "the last revision's second", at: last.ts },
    { what: "a year after the last revision", at: last.ts + 365 * 86_400 },
  ];
  if (run) times.push({ what: `a second shared by several revisions (${run.id} and its predecessors)`, at: run.ts });
  for (const i of [10, 40, 75, 130, 170]) {
    const r = revs[i]!;
    const nextTs = revs.find((n) => n.ts > r.ts)?.ts ?? r.ts + 100;
    times.push({
      what: `a third of the way from revision ${r.id} to the next`,
      at: r.ts + Math.max(1, Math.floor((nextTs - r.ts) / 3)),
    });
  }
  return times.filter((t, i) => times.findIndex((u) => u.at === t.at) === i);
}

/** 14-digit Wayback timestamp of epoch seconds. */
export const wayback = (at: number) => new Date(at * 1000).toISOString().replace(/[-:T]/g, "").slice(0, 14);
