/** workers/middleware/compress.ts: a body a route builds in full goes out br for a client accepting br, with its own ETag and Vary; small bodies stay identity. */
import "../../../src/codec/install-worker.ts";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/limits.ts";
import { compress } from "../../../workers/middleware/compress.ts";

const big = { text: "palimpsest ".repeat(LIMITS.wire.minCompressBytes) };
const app = new Hono()
  .use(compress())
  .get("/big", (c) => c.json(big, 200, { etag: '"v1"' }))
  .get("/small", (c) => c.json({ ok: true }));

describe("compress", () => {
  it("codes a large JSON body as br, with a coded ETag and Vary: Accept-Encoding", async () => {
    const res = await app.request("/big", { headers: { "accept-encoding": "br" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("br");
    expect(res.headers.get("etag")).toBe('"v1-br"');
    expect(res.headers.get("vary")).toMatch(/accept-encoding/i);
    expect(new Uint8Array(await res.arrayBuffer()).byteLength).toBeLessThan(JSON.stringify(big).length / 4);
  });

  it("sends identity to a client that accepts no coding", async () => {
    const res = await app.request("/big", { headers: { "accept-encoding": "identity" } });
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(await res.json()).toEqual(big);
  });

  it("leaves a body under LIMITS.wire.minCompressBytes uncoded", async () => {
    const res = await app.request("/small", { headers: { "accept-encoding": "br" } });
    expect(res.headers.get("content-encoding")).toBeNull();
  });
});
