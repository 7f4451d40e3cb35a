/**
 * RFC 9110 preconditions and ranges on revisions: validators per
 * representation, the evaluation order of §13.2.2, Range / If-Range with
 * 206, 416 and the multiple-range fallback to 200, and HEAD.
 */
import { describe, expect, it } from "vitest";
import { appendOk, linearHistory, request } from "../support/archive.ts";

const PAGE = "Conditional_page";
const URL_1 = `/page/${PAGE}/1`;
const text = (i: number) =>
  `== Revision ${i} ==\n` + `Sentence ${i} repeated to pass the compression threshold. `.repeat(40) + "\n";
let seeded: Promise<void> | undefined;
const seed = () => (seeded ??= appendOk(PAGE, linearHistory(2, 1, text)));
const get = (headers: Record<string, string>, path = URL_1) => request(path, { headers });

async function validators(acceptEncoding?: string): Promise<{ etag: string; lastModified: string; body: Uint8Array }> {
  await seed();
  const res = await get(acceptEncoding ? { "accept-encoding": acceptEncoding } : {});
  return {
    etag: res.headers.get("etag")!,
    lastModified: res.headers.get("last-modified")!,
    body: new Uint8Array(await res.arrayBuffer()),
  };
}

const dayBefore = (date: string) => new Date(Date.parse(date) - 86_400_000).toUTCString();
const dayAfter = (date: string) => new Date(Date.parse(date) + 86_400_000).toUTCString();

describe("If-None-Match and If-Modified-Since", () => {
  it("answers 304 on a weak or strong match of the representation's tag, with its validators and no body", async () => {
    const { etag, lastModified } = await validators();
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const res = await get({ "if-none-match": inm });
      expect([inm, res.status]).toEqual([inm, 304]);
      expect(res.headers.get("etag")).toBe(etag);
      expect(res.headers.get("last-modified")).toBe(lastModified);
      expect(res.headers.get("cache-control")).toBe("public, max-age=600, stale-while-revalidate=86400");
      expect(res.headers.get("content-length")).toBeNull();
      expect(await res.text()).toBe("");
    }
    expect((await get({ "if-none-match": '"other"' })).status).toBe(200);
  });

  it("answers If-Modified-Since by Last-Modified, but If-None-Match takes precedence", async () => {
    const { lastModified } = await validators();
    expect((await get({ "if-modified-since": lastModified })).status).toBe(304);
    expect((await get({ "if-modified-since": dayAfter(lastModified) })).status).toBe(304);
    expect((await get({ "if-modified-since": dayBefore(lastModified) })).status).toBe(200);
    expect((await get({ "if-modified-since": "not a date" })).status).toBe(200);
    // A tag that does not match wins over a date that would give 304.
    expect((await get({ "if-none-match": '"other"', "if-modified-since": dayAfter(lastModified) })).status).toBe(200);
  });

  it("compares against the coded representation: the identity tag does not revalidate a br response", async () => {
    const identity = await validators();
    const br = await validators("br");
    expect(br.etag).not.toBe(identity.etag);
    expect((await get({ "accept-encoding": "br", "if-none-match": br.etag })).status).toBe(304);
    expect((await get({ "accept-encoding": "br", "if-none-match": identity.etag })).status).toBe(200);
    expect((await get({ "if-none-match": br.etag })).status).toBe(200);
  });
});

describe("If-Match and If-Unmodified-Since", () => {
  it("answers 412 unless If-Match names the representation's tag by strong comparison", async () => {
    const { etag } = await validators();
    expect((await get({ "if-match": etag })).status).toBe(200);
    expect((await get({ "if-match": "*" })).status).toBe(200);
    expect((await get({ "if-match": `"nope", ${etag}` })).status).toBe(200);
    const weak = await get({ "if-match": `W/${etag}` });
    expect(weak.status).toBe(412);
    expect(await weak.json()).toMatchObject({ code: "precondition_failed" });
    expect((await get({ "if-match": '"nope"' })).status).toBe(412);
  });

  it("answers 412 when modified after If-Unmodified-Since, which If-Match overrides", async () => {
    const { etag, lastModified } = await validators();
    expect((await get({ "if-unmodified-since": lastModified })).status).toBe(200);
    expect((await get({ "if-unmodified-since": dayBefore(lastModified) })).status).toBe(412);
    expect((await get({ "if-match": etag, "if-unmodified-since": dayBefore(lastModified) })).status).toBe(200);
    // If-Match is evaluated before If-None-Match: a failed If-Match is 412 even when If-None-Match would give 304.
    expect((await get({ "if-match": '"nope"', "if-none-match": etag })).status).toBe(412);
  });
});

describe("Range", () => {
  it("answers one range with 206 and its Content-Range, and advertises Accept-Ranges", async () => {
    const { body } = await validators();
    const full = await get({});
    expect(full.headers.get("accept-ranges")).toBe("bytes");
    const res = await get({ range: "bytes=10-19" });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe(`bytes 10-19/${body.byteLength}`);
    expect(res.headers.get("content-length")).toBe("10");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(body.subarray(10, 20));
    const suffix = await get({ range: "bytes=-5" });
    expect(suffix.headers.get("content-range")).toBe(
      `bytes ${body.byteLength - 5}-${body.byteLength - 1}/${body.byteLength}`,
    );
    expect(new Uint8Array(await suffix.arrayBuffer())).toEqual(body.subarray(-5));
    const open = await get({ range: `bytes=${body.byteLength - 3}-` });
    expect(new Uint8Array(await open.arrayBuffer())).toEqual(body.subarray(-3));
    const past = await get({ range: `bytes=0-${body.byteLength + 100}` });
    expect(past.status).toBe(206);
    expect(past.headers.get("content-range")).toBe(`bytes 0-${body.byteLength - 1}/${body.byteLength}`);
  });

  it("answers 416 with Content-Range: bytes */length when no range is satisfiable", async () => {
    const { body } = await validators();
    const res = await get({ range: `bytes=${body.byteLength}-` });
    expect(res.status).toBe(416);
    expect(res.headers.get("content-range")).toBe(`bytes */${body.byteLength}`);
    expect(await res.json()).toMatchObject({ code: "range_not_satisfiable" });
  });

  it("sends the whole body with 200 for several ranges, a malformed header or another unit", async () => {
    const { body } = await validators();
    for (const range of ["bytes=0-1,10-11", "bytes=abc", "items=0-1"]) {
      const res = await get({ range });
      expect([range, res.status]).toEqual([range, 200]);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(body);
    }
  });

  it("ranges over the coded body when a coding is chosen", async () => {
    const br = await validators("br");
    const res = await get({ "accept-encoding": "br", range: "bytes=0-15" });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-encoding")).toBe("br");
    expect(res.headers.get("etag")).toBe(br.etag);
    expect(res.headers.get("content-range")).toBe(`bytes 0-15/${br.body.byteLength}`);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(br.body.subarray(0, 16));
  });

  it("honours If-Range: the range while the tag or date still holds, the whole body otherwise", async () => {
    const { etag, lastModified, body } = await validators();
    expect((await get({ range: "bytes=0-3", "if-range": etag })).status).toBe(206);
    expect((await get({ range: "bytes=0-3", "if-range": lastModified })).status).toBe(206);
    const stale = await get({ range: "bytes=0-3", "if-range": '"old"' });
    expect(stale.status).toBe(200);
    expect(new Uint8Array(await stale.arrayBuffer())).toEqual(body);
    expect((await get({ range: "bytes=0-3", "if-range": `W/${etag}` })).status).toBe(200);
    expect((await get({ range: "bytes=0-3", "if-range": dayBefore(lastModified) })).status).toBe(200);
  });

  it("is ignored by HEAD, which keeps the GET's headers", async () => {
    const { body } = await validators();
    const head = await request(URL_1, { method: "HEAD", headers: { range: "bytes=0-3" } });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(body.byteLength));
    expect(head.headers.get("accept-ranges")).toBe("bytes");
  });
});

describe("the latest revision", () => {
  it("revalidates and ranges the same way", async () => {
    await seed();
    const latest = await get({}, `/page/${PAGE}`);
    const etag = latest.headers.get("etag")!;
    expect((await get({ "if-none-match": etag }, `/page/${PAGE}`)).status).toBe(304);
    expect((await get({ range: "bytes=0-1" }, `/page/${PAGE}`)).status).toBe(206);
  });
});
