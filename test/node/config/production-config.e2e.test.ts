/**
 * What `wrangler deploy` ships is wrangler.toml's top level, unchanged: it
 * must be production-safe as committed. The Worker is started from exactly
 * that configuration (no dev vars), and `palimpsest dev` is checked to
 * switch development on, and to pass `--var` settings through.
 */
import { spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { freePort, REPO_ROOT, startLocalWorker, type LocalWorker } from "../../../src/tools/local/local-worker.ts";
import { PALIMPSEST_CLI, startPalimpsestDev } from "../support/palimpsest-dev.ts";

const colo = { "x-palimpsest-colo": "SYD" };

/** A GET with a forged Host header, as curl -H 'host: …' sends it (fetch may not set Host). */
function getWithHost(
  url: string,
  host: string,
): Promise<{ status: number; location: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the committed wrangler.toml, as wrangler deploy ships it (no PUBLIC_ORIGIN)", () => {
  let bare: LocalWorker;
  beforeAll(async () => {
    bare = await startLocalWorker({ vars: { PUBLIC_ORIGIN: "" } });
  });
  afterAll(() => bare?.stop());

  it("refuses to serve until PUBLIC_ORIGIN is set, so a forged Host never reaches a Location", async () => {
    for (const path of ["/page/Vellum", "/web/2013/Vellum", "/timemap/link/Vellum", "/dashboard/login"]) {
      const res = await getWithHost(`${bare.url}${path}`, "evil.example");
      expect(res.status, path).toBe(503);
      expect(res.location, path).toBeUndefined();
      expect(JSON.parse(res.body), path).toMatchObject({ code: "public_origin_unset" });
      expect(res.body).not.toContain("evil.example");
    }
    // Still probeable.
    expect((await fetch(`${bare.url}/healthz`)).status).toBe(200);
  });
});

describe("the committed wrangler.toml is the production configuration", () => {
  let archive: LocalWorker;
  beforeAll(async () => {
    // As an operator deploys it: PUBLIC_ORIGIN names the one host it serves.
    const port = await freePort();
    archive = await startLocalWorker({ port, vars: { PUBLIC_ORIGIN: `http://127.0.0.1:${port}` } });
  });
  afterAll(() => archive?.stop());

  it("answers only for PUBLIC_ORIGIN's host, and sends anonymous clients no debug headers", async () => {
    const misdirected = await getWithHost(`${archive.url}/web/2013/Anything`, "evil.example");
    expect(misdirected.status).toBe(421);
    expect(misdirected.location).toBeUndefined();
    const auth = { authorization: `Bearer ${archive.token}`, "content-type": "application/json" };
    const write = await fetch(`${archive.url}/api/pages/Guarded/revisions`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        revisions: [
          {
            id: 1,
            parentId: null,
            timestamp: "2020-01-01T00:00:00Z",
            contributor: "A",
            comment: "",
            model: "wikitext",
            text: "hello",
          },
        ],
      }),
    });
    expect(write.status).toBe(201);
    const anonymous = await fetch(`${archive.url}/page/Guarded/1`);
    expect(anonymous.status).toBe(200);
    for (const h of ["x-palimpsest-tier", "x-palimpsest-colo", "x-read-cost"])
      expect(anonymous.headers.get(h), h).toBeNull();
    const operator = await fetch(`${archive.url}/page/Guarded/1`, { headers: { authorization: auth.authorization } });
    expect(operator.headers.get("x-palimpsest-tier")).not.toBeNull();
    const gate = await fetch(`${archive.url}/web/2021/Guarded`, { redirect: "manual" });
    expect(gate.status).toBe(302);
    expect(gate.headers.get("location")).toBe(`${archive.url}/page/Guarded/1`);
  });

  it("says production, and names no placeholder KV namespace (wrangler deploy provisions it)", () => {
    const config = unstable_readConfig({ config: join(REPO_ROOT, "wrangler.toml") }, { hideWarnings: true });
    expect((config.vars as Record<string, unknown>).ENVIRONMENT).toBe("production");
    expect(
      (config.kv_namespaces as Array<{ binding: string; id?: string }>).map((k) => ({ binding: k.binding, id: k.id })),
    ).toEqual([{ binding: "BLOBS", id: undefined }]);
  });

  it("refuses the colo simulation header from anyone", async () => {
    const res = await fetch(`${archive.url}/page/Anything`, { headers: colo });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "simulation_disabled" });
    expect((await fetch(`${archive.url}/page/Anything`)).status).toBe(404);
  });

  it("has no development-only routes, even for a token with every scope", async () => {
    const auth = { authorization: `Bearer ${archive.token}` };
    const gzip = await fetch(`${archive.url}/api/dev/codec/gzip?op=compress&rounds=200`, {
      method: "POST",
      body: "x".repeat(1000),
      headers: auth,
    });
    expect(gzip.status).toBe(404);
    const fault = await fetch(`${archive.url}/api/dev/faults/tiers/weur%2Fweur-a`, {
      method: "PUT",
      body: JSON.stringify({ unavailable: true }),
      headers: { ...auth, "content-type": "application/json" },
    });
    expect(fault.status).toBe(404);
  });
});

/** Runs `palimpsest dev` with `args` (scratch state, no demo pages) until `probe` has answered, then stops it. */
async function withDev<T>(args: string[], probe: (url: string) => Promise<T>): Promise<T> {
  const dev = await startPalimpsestDev(["--no-demo", ...args]);
  try {
    return await probe(dev.url);
  } finally {
    await dev.stop();
  }
}

describe("palimpsest dev", () => {
  it(
    "runs in development (the simulation header works) and --var NAME=VALUE overrides a [vars] setting",
    { timeout: 150_000 },
    async () => {
      expect(await withDev([], async (url) => (await fetch(`${url}/page/Anything`, { headers: colo })).status)).toBe(
        404,
      );
      expect(
        await withDev(
          ["--var", "ENVIRONMENT=production"],
          async (url) => (await fetch(`${url}/page/Anything`, { headers: colo })).status,
        ),
      ).toBe(400);
    },
  );

  it.each([
    ["lower=case", /--var takes NAME=VALUE/],
    ["TOPOLOGY={not json", /--var TOPOLOGY starts with "\{" but is not JSON/],
  ])("refuses a malformed --var (%s) with exit code 2", async (setting, message) => {
    const child = spawn(process.execPath, [PALIMPSEST_CLI, "dev", "--var", setting], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise((r) => child.on("exit", r));
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});
