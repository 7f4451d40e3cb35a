/**
 * Compression of the responses routes build in full (history here; the
 * browse pages, timemaps and problems take the same path): the coding a
 * client asks for, q-values, Vary, Content-Length, ETags per coding, HEAD.
 */
import { describe, expect, it } from "vitest";
import { brotliDecompress } from "../../../src/codec/index.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";

const PAGE = "Compressed_listing";
const HISTORY = `/page/${PAGE}/history?limit=40`;
let seeded: Promise<void> | undefined;
const seed = () =>
  (seeded ??= appendOk(
    PAGE,
    linearHistory(40, 1, (i) => `line ${i}\n`),
  ));

async function bytes(res: Response): Promise<Uint8Array> {
  return new Uint8Array(await res.arrayBuffer());
}

async function gunzip(body: Uint8Array): Promise<Uint8Array> {
  return bytes(new Response(new Blob([body]).stream().pipeThrough(new DecompressionStream("gzip"))));
}

const get = (path: string, acceptEncoding?: string, extra: Record<string, string> = {}) =>
  request(path, {
    headers: { ...(acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding }), ...extra },
  });

describe("dynamic bodies are compressed as the client asks", () => {
  it("sends br for `br`, gzip for `gzip`, both decoding to the identity body, each with its Content-Length", async () => {
    await seed();
    const identity = await get(HISTORY);
    expect(identity.headers.get("content-encoding")).toBeNull();
    const plain = await bytes(identity);
    expect(plain.byteLength).toBeGreaterThan(1024);
    expect(Number(identity.headers.get("content-length"))).toBe(plain.byteLength);

    const br = await get(HISTORY, "br");
    expect(br.headers.get("content-encoding")).toBe("br");
    const brBody = await bytes(br);
    expect(Number(br.headers.get("content-length"))).toBe(brBody.byteLength);
    expect(brBody.byteLength).toBeLessThan(plain.byteLength / 3);
    expect(brotliDecompress(brBody)).toEqual(plain);

    const gz = await get(HISTORY, "gzip");
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    const gzBody = await bytes(gz);
    expect(Number(gz.headers.get("content-length"))).toBe(gzBody.byteLength);
    expect(await gunzip(gzBody)).toEqual(plain);

    for (const res of [identity, br, gz]) expect(res.headers.get("vary")).toMatch(/accept-encoding/i);
  });

  it("honours q-values: q=0 refuses, higher q wins, `*` covers the rest, and br wins a tie", async () => {
    await seed();
    const coding = async (ae: string) => (await get(HISTORY, ae)).headers.get("content-encoding") ?? "identity";
    expect(await coding("br;q=0, gzip")).toBe("gzip");
    expect(await coding("gzip;q=1, br;q=0.5")).toBe("gzip");
    expect(await coding("gzip, br")).toBe("br");
    expect(await coding("deflate, *;q=0.2")).toBe("br");
    expect(await coding("*;q=0.2, br;q=0")).toBe("gzip");
    expect(await coding("GZIP")).toBe("gzip");
    expect(await coding("x-gzip")).toBe("gzip");
    expect(await coding("")).toBe("identity");
    expect(await coding("identity")).toBe("identity");
    expect(await coding("deflate")).toBe("identity");
  });

  it("answers 406 when every coding, identity included, is refused; identity;q=0 alone still gets br", async () => {
    await seed();
    expect((await get(HISTORY, "identity;q=0, *;q=0")).status).toBe(406);
    expect((await get(HISTORY, "*;q=0")).status).toBe(406);
    const refused = await get(HISTORY, "br;q=0, gzip;q=0, identity;q=0");
    expect(refused.status).toBe(406);
    expect(await refused.json()).toMatchObject({ code: "no_acceptable_encoding" });
    expect((await get(HISTORY, "identity;q=0, br")).headers.get("content-encoding")).toBe("br");
  });

  it("leaves tiny bodies and non-text bodies alone, a tiny text body still varying on Accept-Encoding", async () => {
    const missing = await get("/page/Nobody_wrote_this_one", "br, gzip");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-encoding")).toBeNull();
    // A front line (Cloudflare's, wrangler dev's) may code text we send as identity, so caches must key on it.
    expect(missing.headers.get("vary")).toMatch(/accept-encoding/i);
    expect(await missing.json<object>()).toMatchObject({ code: "page_not_found" });
  });
});

describe("a coded body is its own representation", () => {
  it("has its own ETag, and revalidates with it: 304 for the br tag, 200 when a br client sends the identity tag", async () => {
    await seed();
    const identity = await get(HISTORY);
    const br = await get(HISTORY, "br");
    const tag = identity.headers.get("etag");
    const brTag = br.headers.get("etag");
    if (tag === null || brTag === null) return expect.unreachable("history carries an ETag");
    expect(brTag).not.toBe(tag);
    const revalidated = await get(HISTORY, "br", { "if-none-match": brTag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("etag")).toBe(brTag);
    expect(revalidated.headers.get("content-encoding")).toBeNull();
    expect((await get(HISTORY, "br", { "if-none-match": tag })).status).toBe(200);
    expect((await get(HISTORY, undefined, { "if-none-match": tag })).status).toBe(304);
  });

  it("answers HEAD with the GET's headers and no body", async () => {
    await seed();
    const getRes = await get(HISTORY, "br");
    const head = await request(HISTORY, { method: "HEAD", headers: { "accept-encoding": "br" } });
    expect(head.status).toBe(200);
    for (const name of ["content-type", "content-encoding", "etag", "vary", "cache-control"])
      expect(head.headers.get(name)).toBe(getRes.headers.get(name));
    expect(head.body).toBeNull();
  });
});
