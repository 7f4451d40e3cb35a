/**
 * REDbot (PyPI `redbot`, "lint for HTTP"), installed into a temporary venv,
 * checks a revision, the latest, the history (JSON and HTML) and both
 * TimeMaps of a local archive, as a client without Accept-Encoding (REDbot
 * then probes gzip itself), one asking for br only, and one listing gzip
 * before br as browsers and curl do. Besides the response itself it sends
 * its own conditional, ranged and negotiated requests. No note may be BAD
 * unless it is the local dev stack's doing and production differs (ALLOWED
 * says which and why). Every note is printed, so a reviewer sees the WARN
 * and INFO notes too.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startLocalWorker, type LocalWorker } from "../../../src/tools/local/local-worker.ts";
import { describeNeeding } from "../support/requirements.ts";
import { seedPage } from "../support/seed-page.ts";
import { NO_PYTHON_VENV, PIP_INSTALL_TIMEOUT_MS, pypiVenv, type PypiVenv } from "../support/pypi-venv.ts";

const run = promisify(execFile);
const PAGE = "Redbot_headers";
const REDBOT = "redbot==2.7.1";

/**
 * REDbot's check of one URL with the given request headers, printed as REDbot's own HAR (its notes are each
 * entry's `_red_messages`). The `redbot` command does the same but cannot send request headers.
 */
const CHECK = String.raw`
import json, sys
from configparser import ConfigParser
import thor
from redbot.formatter import find_formatter
from redbot.resource import HttpResource

url, headers = sys.argv[1], [tuple(h) for h in json.loads(sys.argv[2])]
parser = ConfigParser()
parser.read_dict({"redbot": {"enable_local_access": "True"}})
config = parser["redbot"]
resource = HttpResource(config)
resource.set_request(url, headers=headers)
formatter = find_formatter("har")(config, resource, sys.stdout.write, {"tty_out": False, "descend": False})
formatter.bind_resource(resource)

@thor.events.on(formatter)
def formatter_done():
    thor.stop()

resource.check()
thor.run()
`;

interface Note {
  note_id: string;
  level: "GOOD" | "INFO" | "WARN" | "BAD";
  summary: string;
}

interface HarEntry {
  response: { status: number; headers: Array<{ name: string; value: string }> };
  _red_messages: Note[];
}

/** How the client asks: REDbot sends exactly these headers on the response it checks (and its probes keep them). */
const CLIENTS = {
  "no Accept-Encoding": [],
  "br only": [["accept-encoding", "br"]],
  "gzip before br": [["accept-encoding", "gzip, deflate, br"]],
} as const satisfies Record<string, ReadonlyArray<readonly [string, string]>>;
type Client = keyof typeof CLIENTS;

/** A response header as REDbot's HAR gives it (the value as on the wire, after the colon). */
const header = (entry: HarEntry, name: string) =>
  entry.response.headers.find((h) => h.name.toLowerCase() === name)?.value.trim() ?? null;

/**
 * BAD notes that are the dev stack's (wrangler dev / Miniflare), not the archive's: each with the reason
 * production (Cloudflare) does otherwise, and a check that this response shows the dev stack's mark.
 */
const ALLOWED: Record<string, { why: string; applies: (entry: HarEntry, client: Client) => boolean }> = {
  // Miniflare's front line sends no Date; Cloudflare's writes one on every response
  // (https://github.com/httpwg/http-extensions/issues/1607). REDbot calls Last-Modified without Date BAD.
  DATE_CLOCKLESS_BAD_HDR: {
    why: "wrangler dev sends no Date; Cloudflare's edge adds it to every response",
    applies: (entry) => header(entry, "date") === null,
  },
  // Miniflare recodes what the archive sends as br into the client's first-listed coding (gzip), the 206 cut
  // from the stored br included, keeping the br representation's ETag, so the ranged bytes match nothing.
  // Cloudflare passes br through to a client listing `gzip, br`, and never recodes a 206
  // (developers.cloudflare.com/cache/reference/etag-headers, speed/optimization/content/compression).
  RANGE_INCORRECT: {
    why: "wrangler dev recodes the archive's br to gzip under the br ETag; Cloudflare sends br as it is",
    applies: (entry, client) =>
      client === "gzip before br" &&
      header(entry, "content-encoding") === "gzip" &&
      /-br"$/.test(header(entry, "etag") ?? ""),
  },
};

describeNeeding(NO_PYTHON_VENV, "REDbot finds nothing BAD that is the archive's", () => {
  let worker: LocalWorker;
  let venv: PypiVenv;
  const report: string[] = [];

  beforeAll(async () => {
    [worker, venv] = await Promise.all([
      startLocalWorker({ vars: { ENVIRONMENT: "development" } }),
      pypiVenv([REDBOT]),
    ]);
    // Prose that compresses as wiki text does (about 3:1), so a ranged probe of the br body is a part of it.
    let seed = 26;
    const word = () => (
      (seed = (seed * 1103515245 + 12345) % 2 ** 31),
      ["archive", "revision", "page", "memento", "cache", "history", "edit", "time", "reader", "gate", "map", "link"][
        seed % 12
      ]! +
        (seed % 97)
    );
    const prose = (id: number) => `== Revision ${id} ==\n` + Array.from({ length: 400 }, word).join(" ") + "\n";
    await seedPage(worker, PAGE, 5, "REDbot", prose);
  }, PIP_INSTALL_TIMEOUT_MS + 180_000);

  afterAll(async () => {
    if (report.length) console.log(`REDbot ${REDBOT.split("==")[1]}, notes per URL and client:\n${report.join("\n")}`);
    await worker?.stop();
  }, 30_000);

  /** REDbot's notes on `path` as `client` asks, checked: the response is a 200, and no BAD note is the archive's. */
  async function check(
    what: string,
    path: string,
    client: Client,
    extra: ReadonlyArray<readonly [string, string]> = [],
  ): Promise<void> {
    const { stdout } = await run(
      venv.python,
      ["-c", CHECK, `${worker.url}${path}`, JSON.stringify([...CLIENTS[client], ...extra])],
      { timeout: 120_000 },
    );
    const har = JSON.parse(stdout) as { log: { entries: HarEntry[]; _red_error?: string } };
    expect(har.log._red_error, `${what}, ${client}`).toBeUndefined();
    const entry = har.log.entries[0]!;
    expect(entry.response.status, `${what}, ${client}`).toBe(200);
    const notes = entry._red_messages;
    report.push(
      `${what} (${path}), ${client}:`,
      ...notes.map(
        (n) =>
          `  ${n.level} ${n.note_id}: ${n.summary}${n.level === "BAD" && ALLOWED[n.note_id] ? ` [dev stack: ${ALLOWED[n.note_id]!.why}]` : ""}`,
      ),
    );
    const bad = notes.filter((n) => n.level === "BAD" && !ALLOWED[n.note_id]?.applies(entry, client));
    expect(
      bad.map((n) => `${n.note_id}: ${n.summary}`),
      `${what} (${path}), ${client}`,
    ).toEqual([]);
    // The probes ran: a note from each of REDbot's conditional and ranged requests.
    const ids = notes.map((n) => n.note_id);
    expect(
      ids.some((id) => id.startsWith("INM_")),
      `${what}, ${client}: If-None-Match probed`,
    ).toBe(true);
    expect(
      ids.some((id) => id.startsWith("RANGE_")),
      `${what}, ${client}: Range probed`,
    ).toBe(true);
  }

  const targets: Array<[string, string, ReadonlyArray<readonly [string, string]>?]> = [
    ["a revision", `/page/${PAGE}/3`],
    ["the latest", `/page/${PAGE}`],
    ["the history", `/page/${PAGE}/history`],
    ["the history as HTML", `/page/${PAGE}/history`, [["accept", "text/html"]]],
    ["the link-format TimeMap", `/timemap/link/${PAGE}`],
    ["the JSON TimeMap", `/timemap/json/${PAGE}`],
  ];
  for (const [what, path, extra] of targets) {
    it(`${what}: no BAD note of the archive's, for any client`, async () => {
      for (const client of Object.keys(CLIENTS) as Client[]) await check(what, path, client, extra);
    }, 180_000);
  }
});
