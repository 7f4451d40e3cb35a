/**
 * `palimpsest follow` against a wiki on a bad day (an HTTP server in this
 * process standing in for one: the real MediaWiki cannot be made to answer
 * garbage): the CLI fails with one line saying what the wiki did, after
 * honouring Retry-After, and leaves no cursor behind, so nothing is skipped
 * when it runs again. The archive is never reached.
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
  it("stops at once on garbage, saying what came back, and keeps no cursor", async () => {
    const run = await followAgainst((res) =>
      res.writeHead(200, { "content-type": "text/html" }).end("<html>hi</html>"),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(
        /^palimpsest: the wiki's answer is not JSON: "<html>hi<\/html>" \(query at .*, after 1 attempt\)$/,
      ),
    ]);
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
});
