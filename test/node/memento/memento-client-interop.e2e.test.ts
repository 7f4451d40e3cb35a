/**
 * memento-client (PyPI `memento_client`, the Memento project's own
 * Python client), installed into a temporary venv, asks the archive's
 * TimeGate for an imported history (bip-0340, one revision suppressed) at
 * a dozen datetimes: get_memento_info must find the memento the archive
 * documents (never the suppressed one), with its datetime and its visible
 * first/prev/next/last, and the URI it found must serve that revision's
 * body. (0.6.1 has no get_memento_uri; get_memento_info is its lookup.)
 * A client nobody here wrote is the check that the Memento answers follow
 * the protocol, not our reading of it.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeNeeding } from "../support/requirements.ts";
import { PIP_INSTALL_TIMEOUT_MS, pypiVenv, type PypiVenv } from "../support/pypi-venv.ts";
import {
  NEEDS,
  PAGE,
  around,
  askedTimes,
  currentAt,
  sha256,
  startArchive,
  type Archive,
} from "./support/memento-clients.ts";

const run = promisify(execFile);

/** Asks memento-client for each datetime; prints one JSON object per datetime. */
const CLIENT = String.raw`
import json, sys
from datetime import datetime, timezone
from memento_client import MementoClient

original, times = sys.argv[1], json.loads(sys.argv[2])
# The page is its own TimeGate (RFC 7089 Pattern 1.1): memento-client then finds no separate "native" one
# and asks the TimeGate it is given, prefixed to the original URI: here the empty prefix, so the page itself.
client = MementoClient(timegate_uri="", check_native_timegate=False)
out = []
for at in times:
    when = datetime.fromtimestamp(at, timezone.utc).replace(tzinfo=None)
    info = client.get_memento_info(original, when)
    mementos = {k: {"uri": v["uri"][0], "datetime": v["datetime"].strftime("%Y-%m-%dT%H:%M:%SZ") if v.get("datetime") else None, "status": v.get("http_status_code")} for k, v in info.get("mementos", {}).items()}
    out.append({"at": at, "original": info.get("original_uri"), "timegate": info.get("timegate_uri"), "mementos": mementos})
print(json.dumps(out))
`;

interface Found {
  at: number;
  original: string;
  timegate: string;
  mementos: Record<string, { uri: string; datetime: string | null; status?: number }>;
}

describeNeeding(NEEDS, "memento-client finds the archive's mementos", () => {
  let archive: Archive;
  let venv: PypiVenv;

  beforeAll(async () => {
    [archive, venv] = await Promise.all([startArchive(), pypiVenv(["memento_client==0.6.*"])]);
  }, PIP_INSTALL_TIMEOUT_MS + 180_000);

  afterAll(async () => {
    await archive?.stop();
  }, 30_000);

  it("get_memento_info finds the documented memento at 12 datetimes, the suppressed revision's time included, with its visible neighbours", async () => {
    const times = askedTimes(archive);
    expect(times.length).toBeGreaterThanOrEqual(10);
    const { stdout } = await run(
      venv.python,
      ["-c", CLIENT, archive.original, JSON.stringify(times.map((t) => t.at))],
      { timeout: 120_000 },
    );
    const found = JSON.parse(stdout) as Found[];
    const iso = (ts: number) => new Date(ts * 1000).toISOString().replace(".000Z", "Z");
    const url = (id: number) => `${archive.worker.url}/page/${PAGE}/${id}`;
    for (const [i, { what, at }] of times.entries()) {
      const got = found[i]!;
      const want = currentAt(archive.revs, at);
      const nav = around(archive.revs, want);
      expect(got.original, what).toBe(archive.original);
      expect(got.timegate, what).toBe(archive.original);
      expect(got.mementos.closest, what).toEqual({ uri: url(want.id), datetime: iso(want.ts), status: 200 });
      expect(got.mementos.first?.uri, what).toBe(url(nav.first.id));
      expect(got.mementos.last?.uri, what).toBe(url(nav.last.id));
      expect(got.mementos.prev?.uri ?? null, what).toBe(nav.prev && url(nav.prev.id));
      expect(got.mementos.next?.uri ?? null, what).toBe(nav.next && url(nav.next.id));
      for (const m of Object.values(got.mementos))
        expect(m.uri, `${what}: never the suppressed revision`).not.toBe(url(archive.suppressed.id));
      const body = new Uint8Array(await (await fetch(got.mementos.closest!.uri)).arrayBuffer());
      expect(sha256(body), `${what}: the body of revision ${want.id}`).toBe(want.sha256);
    }
    // At the suppressed revision's own second, the client lands on its visible predecessor.
    const atSuppressed = found[times.findIndex((t) => t.at === archive.suppressed.ts)]!;
    expect(atSuppressed.mementos.closest?.uri).toBe(url(archive.revs[archive.suppressed.seq - 1]!.id));
  }, 240_000);
});
