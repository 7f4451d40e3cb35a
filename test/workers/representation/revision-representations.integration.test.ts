/**
 * How a revision goes out: its media type (wikitext as text/plain with its
 * model named, HTML byte for byte as stored), its br body made once at high
 * quality and kept in the tiers beside the identity body, and Cache-Control
 * that says what the archive does with each kind of answer.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { brotliCompress, brotliDecompress } from "../../../src/codec/index.ts";
import { revisionKey } from "../../../src/tiers/cache-key.ts";
import { LowerTier } from "../../../src/tiers/lower-tier.ts";
import { app } from "../../../workers/app.ts";
import type { NewRevision } from "../../../src/page/types.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";

/** A request whose background work (the lower tier's fill) is finished when it returns. */
async function settled(path: string, headers: Record<string, string> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://archive.test${path}`, { headers }), env, ctx);
  const body = await res.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return new Response(body, res);
}

const prose = (i: number) =>
  `== Revision ${i} ==\n` +
  Array.from({ length: 60 }, (_, l) => `Line ${l} of revision ${i}: the quick brown fox jumps over the lazy dog.`).join(
    "\n",
  ) +
  "\n";

const HTML =
  "<!DOCTYPE html>\r\n<html lang=en><head><meta charset=utf-8><title>Caf\u00e9 &amp; co</title></head>\r\n<body>\r\n" +
  Array.from(
    { length: 40 },
    (_, i) => `<p class="x">Paragraph ${i}: &lt;kept&gt; as &#x41; written\u00a0\u2014 <b>unchanged</b></p>\r\n`,
  ).join("") +
  "</body></html>\r\n";

function htmlRevision(id: number, text: string): NewRevision {
  return {
    id,
    parentId: null,
    timestamp: "2021-03-04T05:06:07Z",
    contributor: "Archivist",
    comment: "capture",
    model: "html",
    text,
  };
}

describe("media types", () => {
  it("serves wikitext as text/plain; charset=utf-8 and names the model in x-content-model", async () => {
    await appendOk("Typed_wikitext", linearHistory(2, 1, prose));
    const res = await request("/page/Typed_wikitext/1");
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("x-content-model")).toBe("wikitext");
    expect(await res.text()).toBe(prose(0));
  });

  it("serves an archived HTML page as text/html, byte for byte as it was written", async () => {
    await appendOk("Typed_html", [htmlRevision(7, HTML)]);
    const res = await request("/page/Typed_html/7");
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("x-content-model")).toBe("html");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new TextEncoder().encode(HTML));
    const br = await request("/page/Typed_html/7", { headers: { "accept-encoding": "br" } });
    expect(brotliDecompress(new Uint8Array(await br.arrayBuffer()))).toEqual(new TextEncoder().encode(HTML));
  });

  it("serves other models by the format recorded with them", async () => {
    await appendOk("Typed_css", [{ ...htmlRevision(1, "body { color: red }\n"), model: "css", format: "text/css" }]);
    const res = await request("/page/Typed_css/1");
    expect(res.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(res.headers.get("x-content-model")).toBe("css");
  });
});

describe("a revision's br body", () => {
  it("is made once at quality 11, kept in the lower tier beside the identity body, and is what a hot read sends", async () => {
    await appendOk("Br_kept", linearHistory(2, 1, prose));
    const identity = new Uint8Array(await (await request("/page/Br_kept/1")).arrayBuffer());
    const first = await settled("/page/Br_kept/1", {
      "accept-encoding": "gzip, deflate, br",
      "x-palimpsest-colo": "LHR",
    });
    expect(first.headers.get("content-encoding")).toBe("br");
    const firstBody = new Uint8Array(await first.arrayBuffer());
    expect(brotliDecompress(firstBody)).toEqual(identity);
    // Quality 11, not the dynamic 5: smaller than what a per-request encoder would send.
    const q5 = brotliCompress(identity, { quality: 5 });
    expect(firstBody.byteLength).toBeLessThan(q5.byteLength);

    const lower = await LowerTier.open(env, "LHR");
    const { hit } = await lower.get(revisionKey("Br_kept", 1));
    expect(hit?.entry.encoded?.br).toEqual(firstBody);
    expect(hit?.entry.body).toEqual(identity);

    const hot = await request("/page/Br_kept/1", { headers: { "accept-encoding": "br", "x-palimpsest-colo": "LHR" } });
    expect(hot.headers.get("x-palimpsest-tier")).toBe("lower");
    expect(new Uint8Array(await hot.arrayBuffer())).toEqual(firstBody);
    expect(Number(hot.headers.get("content-length"))).toBe(firstBody.byteLength);
  });

  it("is a representation of its own: ETag with -br, Vary: Accept-Encoding, HEAD with the same Content-Length", async () => {
    await appendOk("Br_etag", linearHistory(1, 1, prose));
    const identity = await request("/page/Br_etag/1");
    const br = await request("/page/Br_etag/1", { headers: { "accept-encoding": "br" } });
    const tag = identity.headers.get("etag")!;
    expect(tag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(br.headers.get("etag")).toBe(`${tag.slice(0, -1)}-br"`);
    for (const res of [identity, br]) expect(res.headers.get("vary")).toMatch(/Accept-Encoding/);
    const head = await request("/page/Br_etag/1", { method: "HEAD", headers: { "accept-encoding": "br" } });
    expect(head.body).toBeNull();
    for (const name of [
      "content-length",
      "content-encoding",
      "etag",
      "vary",
      "content-type",
      "cache-control",
      "accept-ranges",
      "last-modified",
    ]) {
      expect([name, head.headers.get(name)]).toEqual([name, br.headers.get(name)]);
    }
  });
});

describe("Cache-Control tells the truth", () => {
  it("a specific revision is fresh for 10 minutes and may be served stale for a day while revalidating (a suppression must reach downstream caches); latest, ?at= and history are fresh for a minute", async () => {
    await appendOk("Cache_told", linearHistory(12, 1, prose));
    expect((await request("/page/Cache_told/2")).headers.get("cache-control")).toBe(
      "public, max-age=600, stale-while-revalidate=86400",
    );
    for (const path of ["/page/Cache_told", "/page/Cache_told?at=2020-01-01T00:00:01Z", "/page/Cache_told/history"]) {
      const res = await request(path, { headers: { "accept-encoding": "br" } });
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.headers.get("cache-control")).toBe("public, max-age=60, stale-while-revalidate=240");
      expect(res.headers.get("vary")).toMatch(/Accept-Encoding/);
    }
  });
});
