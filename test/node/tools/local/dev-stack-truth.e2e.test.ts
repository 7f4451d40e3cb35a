/**
 * What the local dev stack tells a developer is true: a false warning teaches
 * people to ignore the true ones.
 *
 * - `npm start` in a fresh checkout (a copy of the repository with no
 *   `.dev.vars`, run from its root as npm runs it) prints no warning: not
 *   that `node:zlib` needs `nodejs_compat` (the flag is set; the local
 *   Worker is now bundled in the mode wrangler.toml asks for, as
 *   `wrangler deploy` bundles it), and not that the types may be out of
 *   date (they are not: `.dev.vars` now names every secret, as the
 *   `.dev.vars.example` the types are made from does).
 * - Miniflare's front line re-codes a Worker's br body to gzip for a client
 *   that lists gzip first, keeping the `-br` ETag, and through that a Range
 *   answer loses its body. No wrangler or Miniflare option turns that off
 *   (Miniflare's entry worker does it for every response), so the README
 *   says what production does instead, and this pins the local behaviour it
 *   documents: if Miniflare changes, this fails and the README must change.
 *   The archive's own 206 (a client that asks for br) is right.
 */
import { cpSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, startLocalWorker, type LocalWorker } from "../../../../src/tools/local/local-worker.ts";
import { startPalimpsestDev } from "../../support/palimpsest-dev.ts";
import { scratchDirForThisFile } from "../../support/scratch.ts";
import { seedPage } from "../../support/seed-page.ts";

/** What `npm start` needs of a checkout, copied as a clone has it; node_modules shared. */
const CHECKOUT_FILES = [
  "package.json",
  "wrangler.toml",
  "tsconfig.json",
  "worker-configuration.d.ts",
  ".dev.vars.example",
  "src",
  "workers",
  "durable-objects",
];

describe("npm start's output", () => {
  const scratch = scratchDirForThisFile("dev-stack-checkout-");

  it(
    "in a fresh checkout carries no warning: neither node:zlib needing nodejs_compat nor out-of-date types",
    { timeout: 150_000 },
    async () => {
      const checkout = join(scratch, "palimpsest");
      for (const path of CHECKOUT_FILES) cpSync(join(REPO_ROOT, path), join(checkout, path), { recursive: true });
      symlinkSync(join(REPO_ROOT, "node_modules"), join(checkout, "node_modules"));

      const dev = await startPalimpsestDev(["--no-demo"], {
        checkout,
        timeoutMs: 120_000,
        ready: /serving the archive at/,
      });
      try {
        // Served: the node:zlib path (gzip) works, so the flag is in force.
        const res = await fetch(`${dev.url}/api/limits`, { headers: { "accept-encoding": "gzip" } });
        expect(res.status).toBe(200);
        expect(res.headers.get("content-encoding")).toBe("gzip");
        await res.arrayBuffer();
        const out = dev.output();
        expect(out, dev.tail()).toMatch(/serving the archive at/);
        expect(out, dev.tail()).not.toMatch(/nodejs_compat/);
        expect(out, dev.tail()).not.toMatch(/types might be out of date|types looked out of date/);
        expect(out, dev.tail()).not.toMatch(/\[WARNING\]/);
      } finally {
        await dev.stop();
      }
    },
  );
});

describe("a Range request through Miniflare's re-coding", () => {
  const PAGE = "Range_through_recoding";
  // Words that do not repeat much, so the br body is several KB and bytes 0-99 are a cut of it.
  const TEXT = Array.from({ length: 3000 }, (_, i) => `w${(i * 2654435761) % 100_003}`).join(" ");
  let worker: LocalWorker;
  let br: Buffer;

  beforeAll(async () => {
    worker = await startLocalWorker({ vars: { ENVIRONMENT: "development" } });
    await seedPage(worker, PAGE, 1, "R", () => TEXT);
    // The whole br representation as it goes on the wire (Node's fetch would decode it).
    br = Buffer.from(await rawBody(`/page/${PAGE}/1`, { "accept-encoding": "br" }));
    expect(brotliDecompressSync(br).toString("utf8")).toBe(TEXT);
    expect(br.byteLength).toBeGreaterThan(1000);
  });

  afterAll(() => worker?.stop(), 30_000);

  /** The bytes on the wire, without decoding (node:http). */
  async function rawBody(path: string, headers: Record<string, string>): Promise<Uint8Array> {
    const { request } = await import("node:http");
    const url = new URL(path, worker.url);
    return new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(Buffer.concat(chunks)));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end();
    });
  }

  it("the archive's own 206: a client asking for br gets bytes 0-99 of the br representation", async () => {
    const res = await fetch(`${worker.url}/page/${PAGE}/1`, {
      headers: { "accept-encoding": "br", range: "bytes=0-99" },
    });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe(`bytes 0-99/${br.byteLength}`);
    expect(res.headers.get("etag")).toMatch(/-br"$/);
    const cut = await rawBody(`/page/${PAGE}/1`, { "accept-encoding": "br", range: "bytes=0-99" });
    expect(Buffer.from(cut).equals(br.subarray(0, 100))).toBe(true);
    await res.arrayBuffer();
  });

  it("locally (documented in the README), `accept-encoding: gzip, br` re-codes to gzip under the -br ETag, and a Range gets a 206 with an empty body", async () => {
    const whole = await fetch(`${worker.url}/page/${PAGE}/1`, { headers: { "accept-encoding": "gzip, br" } });
    expect(whole.status).toBe(200);
    expect(
      whole.headers.get("content-encoding"),
      "Miniflare no longer re-codes to the client's first coding: update the README",
    ).toBe("gzip");
    expect(whole.headers.get("etag")).toMatch(/-br"$/);
    expect(await whole.text()).toBe(TEXT);

    const res = await fetch(`${worker.url}/page/${PAGE}/1`, {
      headers: { "accept-encoding": "gzip, br", range: "bytes=0-99" },
    });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("etag")).toMatch(/-br"$/);
    expect(res.headers.get("content-range")).toBe(`bytes 0-99/${br.byteLength}`);
    // The Worker sent the right 100 bytes of br; Miniflare decoded that cut stream (nothing whole comes out) and gzipped the nothing.
    expect((await res.arrayBuffer()).byteLength, "Miniflare's re-coded 206 has a body now: update the README").toBe(0);
  });
});
