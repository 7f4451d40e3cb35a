/**
 * A repeated anonymous export is a hit in this colo's cache (the lower tier), and its body, up to
 * `export.anonymousMaxBytes` of XML, is never read by the Worker unless a Range needs it: an
 * `If-None-Match` that matches is answered 304 from the stored headers with the body cancelled
 * unread, a HEAD likewise, and a 200 passes the Cache API's stream on as it is, with its length.
 * The lower tier's cache is wrapped so every byte the Worker pulls from a stored body is counted.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { CACHE_CONTROL } from "../../../src/representation/cache-control.ts";
import { app } from "../../../workers/app.ts";
import { appendOk, linearHistory } from "../support/archive.ts";

const page = "Export_unread_lower_hit";
const path = `/page/${page}/export`;
const client = { "cf-connecting-ip": "192.0.2.77" };

/** What the Worker did with the stored bodies of this page's entries since the last reset. */
const reads = { matched: 0, bytes: 0, cancelled: 0 };

/** The cached response, its body pulled only on demand and counted (no read ahead: highWaterMark 0). */
function counting(res: Response): Response {
  const source = res.body!.getReader();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await source.read();
        if (done) return controller.close();
        reads.bytes += value.byteLength;
        controller.enqueue(value);
      },
      cancel(reason) {
        reads.cancelled++;
        return source.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: res.status, headers: res.headers });
}

/** Every lower tier (`caches.open("lower:<colo>")` in development) as a cache whose hits for this page are counted. */
function wrapLowerCaches(): void {
  const open = caches.open.bind(caches);
  vi.spyOn(caches, "open").mockImplementation(async (name: string) => {
    const cache = await open(name);
    if (!name.startsWith("lower:")) return cache;
    return new Proxy(cache, {
      get(target, prop) {
        if (prop === "match")
          return async (req: RequestInfo, options?: CacheQueryOptions) => {
            const res = await target.match(req, options);
            const url = typeof req === "string" ? req : req.url;
            if (!res || !url.includes(page)) return res;
            reads.matched++;
            return counting(res);
          };
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  });
}

/** A request whose background work (the lower tier's put) is done before it returns. */
async function settled(init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://archive.test${path}`, { redirect: "manual", ...init }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

let xml = "";
let etag = "";

beforeAll(async () => {
  await appendOk(page, linearHistory(5));
  wrapLowerCaches();
  const first = await settled({ headers: client });
  expect(first.status).toBe(200);
  expect(first.headers.get("x-palimpsest-tier")).toBe("origin");
  xml = await first.text();
  etag = first.headers.get("etag")!;
});

afterAll(() => vi.restoreAllMocks());

beforeEach(() => Object.assign(reads, { matched: 0, bytes: 0, cancelled: 0 }));

describe("a repeated anonymous export from this colo's cache", () => {
  it("answers If-None-Match 304 from the stored headers, the body cancelled unread", async () => {
    const res = await settled({ headers: { ...client, "if-none-match": etag } });
    expect(res.status).toBe(304);
    expect(res.headers.get("x-palimpsest-tier")).toBe("lower");
    expect(res.headers.get("etag")).toBe(etag);
    expect(reads).toEqual({ matched: 1, bytes: 0, cancelled: 1 });
  });

  it("answers HEAD with the body's length, unread", async () => {
    const res = await settled({ method: "HEAD", headers: client });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-palimpsest-tier")).toBe("lower");
    expect(res.headers.get("content-length")).toBe(String(new TextEncoder().encode(xml).byteLength));
    expect(reads).toEqual({ matched: 1, bytes: 0, cancelled: 1 });
  });

  it("passes the stored body on as a stream: nothing read when the answer leaves, all of it byte for byte after", async () => {
    const res = await settled({ headers: client });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-palimpsest-tier")).toBe("lower");
    const length = new TextEncoder().encode(xml).byteLength;
    expect(res.headers.get("content-length")).toBe(String(length));
    expect(res.headers.get("etag")).toBe(etag);
    expect(res.headers.get("cache-control")).toBe(CACHE_CONTROL.changing);
    expect(res.headers.get("vary")).toMatch(/Accept-Encoding/);
    expect(reads).toEqual({ matched: 1, bytes: 0, cancelled: 0 });
    expect(await res.text()).toBe(xml);
    expect(reads.bytes).toBe(length);
  });

  it("cuts a Range from the stored body", async () => {
    const res = await settled({ headers: { ...client, range: "bytes=10-29" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("x-palimpsest-tier")).toBe("lower");
    const length = new TextEncoder().encode(xml).byteLength;
    expect(res.headers.get("content-range")).toBe(`bytes 10-29/${length}`);
    expect(await res.text()).toBe(xml.slice(10, 30));
  });

  it("a write's purge reaches it: the next export is the new version, not the stored one", async () => {
    await appendOk(page, linearHistory(6).slice(5));
    const res = await settled({ headers: client });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-palimpsest-tier")).not.toBe("lower");
    expect(res.headers.get("etag")).not.toBe(etag);
    expect(res.headers.get("x-export-revisions")).toBe("6");
    await res.body?.cancel();
  });
});
