import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/limits.ts";
import { TOKEN, linearHistory, request } from "../support/archive.ts";

const auth = { authorization: `Bearer ${TOKEN}` };

/** A JSON body of about `bytes` bytes, sent in 1 MiB chunks with no Content-Length (chunked). */
function chunkedBody(bytes: number): ReadableStream<Uint8Array> {
  const head = new TextEncoder().encode(
    JSON.stringify({ revisions: [{ ...linearHistory(1)[0], text: "" }] }).replace('"text":""', '"text":"'),
  );
  const filler = new TextEncoder().encode("a".repeat(1 << 20));
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === 0) controller.enqueue(head);
      if (sent >= bytes) {
        controller.enqueue(new TextEncoder().encode('"}]}'));
        return controller.close();
      }
      controller.enqueue(filler);
      sent += filler.byteLength;
    },
  });
}

describe("request bodies are counted as they are read", () => {
  it("refuses a chunked body over the limit with 413 naming it, and writes nothing", async () => {
    const res = await request("/api/pages/Chunked_flood/revisions", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: chunkedBody(LIMITS.storage.maxRequestBytes + (2 << 20)),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      code: "request_too_large",
      limit: { name: "storage.maxRequestBytes", value: LIMITS.storage.maxRequestBytes },
    });
    expect((await request("/page/Chunked_flood")).status).toBe(404);
  });

  it("refuses a declared body between the limit and what a Durable Object call could carry", async () => {
    const body = new Uint8Array(LIMITS.storage.maxRequestBytes + 1024).fill(0x20);
    const res = await request("/api/pages/Declared_flood/revisions", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ limit: { name: "storage.maxRequestBytes" } });
  });

  it("accepts a chunked body just under the limit, whose texts cross the Durable Object call as UTF-8", async () => {
    // Two 11 MiB texts with one non-Latin-1 character each: as JS strings they would cross RPC as UTF-16,
    // 44 MiB, over the 32 MiB a Durable Object call carries.
    const texts = [0, 1].map((i) => `Ж${String(i).repeat(11 << 20)}`);
    const revisions = linearHistory(2).map((r, i) => ({ ...r, text: texts[i]! }));
    const body = new TextEncoder().encode(JSON.stringify({ revisions }));
    expect(body.byteLength).toBeLessThan(LIMITS.storage.maxRequestBytes);
    const stream = new ReadableStream({
      start(controller) {
        for (let off = 0; off < body.byteLength; off += 1 << 20)
          controller.enqueue(body.subarray(off, off + (1 << 20)));
        controller.close();
      },
    });
    const res = await request("/api/pages/Chunked_ok/revisions", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(201);
    for (const [i, text] of texts.entries())
      expect((await (await request(`/page/Chunked_ok/${i + 1}`)).text()) === text).toBe(true);
  });
});

describe("Content-Type is parsed, not searched", () => {
  const post = (key: string, contentType: string) =>
    request(`/api/pages/${key}/revisions`, {
      method: "POST",
      headers: { ...auth, "content-type": contentType },
      body: JSON.stringify({ revisions: linearHistory(1) }),
    });

  it("accepts JSON with parameters and in any case", async () => {
    expect((await post("Typed_a", "application/json; charset=utf-8")).status).toBe(201);
    expect((await post("Typed_b", "Application/JSON")).status).toBe(201);
  });

  it("refuses a type that merely mentions JSON in a parameter, or no type at all", async () => {
    for (const type of [
      "text/plain; note=application/json",
      "text/plain",
      "application/jsonx",
      "application/json; =",
    ]) {
      const res = await post("Typed_c", type);
      expect(res.status, type).toBe(415);
      expect(await res.json()).toMatchObject({ code: "unsupported_media_type" });
    }
    expect((await request("/page/Typed_c")).status).toBe(404);
  });
});
