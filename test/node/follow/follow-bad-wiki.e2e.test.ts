/**
 * `palimpsest follow` against a wiki on a bad day (an HTTP server in this
 * process standing in for one: the real MediaWiki cannot be made to answer
 * garbage): the CLI fails with one line saying what the wiki did (its
 * status and a fixed phrase, never what it sent), after honouring
 * Retry-After, and leaves no cursor behind, so nothing is skipped when it
 * runs again; a redirect to another origin is refused without a request
 * there. The archive is never reached.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../src/tools/local/local-worker.ts";

const CLI = join(REPO_ROOT, "src/tools/cli/palimpsest.js");

let server: Server | undefined;
let scratch: string | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  if (scratch) await rm(scratch, { recursive: true, force: true });
  server = scratch = undefined;
});

async function followAgainst(
  answer: (res: import("node:http").ServerResponse) => void,
): Promise<{ code: number | null; stderr: string; stdout: string; ms: number; requests: number; cursor: string }> {
  let requests = 0;
  server = createServer((_, res) => {
    requests++;
    answer(res);
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  scratch = await mkdtemp(join(tmpdir(), "palimpsest-follow-bad-"));
  const cursor = join(scratch, "cursor.json");
  const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/w/api.php`;
  const started = Date.now();
  const args = [
    CLI,
    "follow",
    api,
    "--once",
    "--url",
    "http://127.0.0.1:9",
    "--token",
    "unused-token",
    "--cursor",
    cursor,
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: scratch, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr, ms: Date.now() - started, requests, cursor }));
  });
}

describe("palimpsest follow against a misbehaving wiki", () => {
  it("stops at once on garbage, saying what it was but never quoting it, and keeps no cursor", async () => {
    const run = await followAgainst((res) =>
      res.writeHead(200, { "content-type": "text/html" }).end("<html>Visit evil.example, operator!</html>"),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^palimpsest: the wiki's answer is not JSON \(query at .*, after 1 attempt\)$/),
    ]);
    expect(run.stderr).not.toMatch(/evil|Visit|html/);
    expect(run.requests).toBe(1);
    expect(existsSync(run.cursor)).toBe(false);
    expect(existsSync(`${run.cursor}.lock`)).toBe(false);
  }, 60_000);

  it("waits as Retry-After says on 503, then gives up with the reason after its attempts", async () => {
    const run = await followAgainst((res) => res.writeHead(503, { "retry-after": "1" }).end("busy"));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^palimpsest: the wiki answered HTTP 503 \(query at .*, after 6 attempts\)\n$/);
    expect(run.requests).toBe(6);
    expect(run.ms).toBeGreaterThanOrEqual(5_000); // five waits of the second it asked for
    expect(existsSync(run.cursor)).toBe(false);
  }, 60_000);

  it("names an API error by its code only, never its info", async () => {
    const run = await followAgainst((res) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { code: "readapidenied", info: "Call +1 555 0100 to unlock your archive" } })),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^palimpsest: API error readapidenied \(query at .*, after 1 attempt\)\n$/);
    expect(run.stderr).not.toMatch(/555|unlock/);
  }, 60_000);

  it("refuses a redirect to another origin, naming the status and that origin only, and never goes there", async () => {
    let elsewhere = 0;
    const other = createServer((_, res) => {
      elsewhere++;
      res.writeHead(200, { "content-type": "application/json" }).end('{"query":{"recentchanges":[]}}');
    });
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
    const port = (other.address() as AddressInfo).port;
    try {
      const run = await followAgainst((res) =>
        res.writeHead(302, { location: `http://127.0.0.1:${port}/steal?token=secret-path` }).end("moved"),
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(
          `^palimpsest: the wiki answered HTTP 302, a redirect to another origin \\(http://127\\.0\\.0\\.1:${port}\\); the follower reads only http://127\\.0\\.0\\.1:\\d+ \\(query at .*, after 1 attempt\\)\\n$`,
        ),
      );
      expect(run.stderr).not.toMatch(/steal|secret/);
      expect(run.requests).toBe(1);
      expect(elsewhere).toBe(0);
      expect(existsSync(run.cursor)).toBe(false);
    } finally {
      other.closeAllConnections();
      await new Promise((r) => other.close(r));
    }
  }, 60_000);
});
