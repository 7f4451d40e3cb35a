/**
 * Real HTTP clients against a local Worker (workerd through wrangler's dev
 * server): `curl --compressed` and Node's fetch ask for br/gzip, get them,
 * and decode to exactly the identity body, for a stored revision (its br
 * made once, in the tiers) and for a dynamic history page. This is the
 * check that the runtime sends our coded bytes as they are and does not
 * code them again.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalWorker, type LocalWorker } from "../../../src/tools/local/local-worker.ts";
import { seedPage } from "../support/seed-page.ts";

const run = promisify(execFile);
const PAGE = "Curl_compressed";
const prose = (i: number) =>
  `== Revision ${i} ==\n` + `Line of revision ${i}, long enough to be worth compressing. `.repeat(80) + "\n";

let worker: LocalWorker;

beforeAll(async () => {
  worker = await startLocalWorker({ vars: { ENVIRONMENT: "development" } });
  await seedPage(worker, PAGE, 12, "Curl", prose);
});

afterAll(async () => {
  await worker?.stop();
}, 30_000);

/** curl's response headers (lower-cased names) and the body it wrote, decoded if `--compressed` is among the args. */
async function curl(path: string, ...args: string[]): Promise<{ headers: Map<string, string>; body: Buffer }> {
  const dir = await mkdtemp(join(tmpdir(), "curl-"));
  try {
    const [headerFile, bodyFile] = [join(dir, "headers"), join(dir, "body")];
    await run("curl", ["-sS", "--fail", "-D", headerFile, "-o", bodyFile, ...args, `${worker.url}${path}`]);
    const lines = (await readFile(headerFile, "latin1")).split("\r\n").slice(1).filter(Boolean);
    const headers = new Map(
      lines.map(
        (line) =>
          [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()] as [
            string,
            string,
          ],
      ),
    );
    return { headers, body: await readFile(bodyFile) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("curl --compressed", () => {
  for (const path of [`/page/${PAGE}/2`, `/page/${PAGE}/history`]) {
    it(`gets ${path} compressed and decodes it to the identity body; without asking, gets identity`, async () => {
      const identity = await curl(path);
      expect(identity.headers.get("content-encoding")).toBeUndefined();
      expect(identity.body.byteLength).toBeGreaterThan(1024);
      // curl offers "deflate, gzip, br, zstd"; wrangler dev, as Cloudflare, may recode to the client's first choice.
      const compressed = await curl(path, "--compressed");
      expect(compressed.headers.get("content-encoding")).toMatch(/^(br|gzip)$/);
      expect(compressed.body.equals(identity.body)).toBe(true);
      const br = await curl(path, "--compressed", "-H", "accept-encoding: br");
      expect(br.headers.get("content-encoding")).toBe("br");
      expect(br.headers.get("vary")).toMatch(/Accept-Encoding/);
      expect(br.body.equals(identity.body)).toBe(true);
      // The bytes on the wire are one brotli stream of the body, not coded twice.
      const raw = await curl(path, "-H", "accept-encoding: br");
      expect(Number(raw.headers.get("content-length"))).toBe(raw.body.byteLength);
      expect(raw.body.byteLength).toBeLessThan(identity.body.byteLength / 3);
      expect(brotliDecompressSync(raw.body).equals(identity.body)).toBe(true);
      const gz = await curl(path, "-H", "accept-encoding: gzip");
      expect(gz.headers.get("content-encoding")).toBe("gzip");
      expect(gunzipSync(gz.body).equals(identity.body)).toBe(true);
    });
  }
});

describe("Node fetch", () => {
  it("asks for br or gzip, decodes what it gets, and matches the identity body", async () => {
    const identity = await (
      await fetch(`${worker.url}/page/${PAGE}/3`, { headers: { "accept-encoding": "identity" } })
    ).text();
    const res = await fetch(`${worker.url}/page/${PAGE}/3`);
    expect(res.headers.get("content-encoding")).toMatch(/^(br|gzip)$/);
    expect(await res.text()).toBe(identity);
    expect(identity).toBe(prose(3));
  });
});
