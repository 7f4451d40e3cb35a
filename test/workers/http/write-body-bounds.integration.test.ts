/**
 * A write token must not make the archive build millions of objects: the
 * write API (and the purge API) refuse a body's structure as it streams in,
 * by revision count, values in all and nesting depth, before JSON.parse runs
 * (JSON.parse would build every object first). Driven through HTTP as a hostile token holder would.
 */
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/limits.ts";
import { TOKEN, linearHistory, request } from "../support/archive.ts";
import { TOKENS, bearer } from "../support/tokens.ts";

const MAX = LIMITS.storage.maxRequestBytes;
const enc = new TextEncoder();

/** Just under the byte limit: `head`, then `unit` repeated, then `tail`. */
function filled(head: string, unit: string, tail: string): Uint8Array {
  const n = Math.floor((MAX - head.length - tail.length) / unit.length);
  const out = new Uint8Array(head.length + n * unit.length + tail.length);
  out.set(enc.encode(head));
  const u = enc.encode(unit);
  for (let i = 0; i < n; i++) out.set(u, head.length + i * u.length);
  out.set(enc.encode(tail), head.length + n * u.length);
  return out;
}

/** `bytes` sent in chunks of `size` with no Content-Length. */
function chunked(bytes: Uint8Array, size = 64 << 10): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(sent, sent + size));
      sent += size;
    },
  });
}

const write = (key: string, body: BodyInit, token = TOKEN) =>
  request(`/api/pages/${key}/revisions`, {
    method: "POST",
    headers: { ...bearer(token), "content-type": "application/json" },
    body,
    duplex: "half",
  } as RequestInit);

interface Problem {
  code: string;
  limit?: { name: string; value: number };
  offset?: number;
}

describe("write bodies are bounded while they stream in", () => {
  it("refuses 24 MiB of {} at the 501st revision, naming the batch limit", { timeout: 60_000 }, async () => {
    const res = await write("Flood_objects", chunked(filled('{"revisions":[', "{},", "{}]}")));
    expect(res.status).toBe(413);
    const problem = await res.json<Problem>();
    expect(problem).toMatchObject({
      code: "batch_too_large",
      limit: { name: "storage.maxBatchRevisions", value: LIMITS.storage.maxBatchRevisions },
    });
    // Refused where the 501st element starts, at byte 14 + 500 × 3: nothing past it was scanned or kept.
    expect(problem.offset).toBe(14 + 3 * LIMITS.storage.maxBatchRevisions);
    expect((await request("/page/Flood_objects")).status).toBe(404);
  });

  it(
    "refuses a declared 24 MiB of {} outside any revisions array by its count of values",
    { timeout: 60_000 },
    async () => {
      const res = await write("Flood_values", filled("[", "{},", "{}]"));
      expect(res.status).toBe(413);
      const problem = await res.json<Problem>();
      expect(problem).toMatchObject({
        code: "json_too_many_values",
        limit: { name: "storage.maxJsonValues", value: LIMITS.storage.maxJsonValues },
      });
      expect(problem.offset).toBeLessThan(64 << 10);
    },
  );

  it(
    "refuses arrays nested 100,000 deep, naming the depth limit, at the first bracket past it",
    { timeout: 60_000 },
    async () => {
      for (const [head, tail] of [
        ["", ""],
        ['{"revisions":', "}"],
      ] as const) {
        const res = await write(
          "Flood_depth",
          chunked(enc.encode(head + "[".repeat(100_000) + "]".repeat(100_000) + tail)),
        );
        expect(res.status, head).toBe(400);
        const problem = await res.json<Problem>();
        expect(problem).toMatchObject({
          code: "json_too_deep",
          limit: { name: "http.maxJsonDepth", value: LIMITS.http.maxJsonDepth },
        });
        expect(problem.offset, head).toBe(head.length + LIMITS.http.maxJsonDepth - (head ? 1 : 0));
      }
    },
  );

  it("counts revisions under an escaped key as JSON.parse would read it", async () => {
    const body = `{"revi\\u0073ions":[${Array(LIMITS.storage.maxBatchRevisions + 1)
      .fill("{}")
      .join(",")}]}`;
    const res = await write("Flood_escaped", body);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "batch_too_large" });
  });

  it(
    "refuses 501 real revisions, then takes a full batch of 500 whose texts are full of brackets, sent in odd chunks",
    { timeout: 60_000 },
    async () => {
      const tags = Array.from({ length: LIMITS.page.maxTagsPerRevision }, (_, i) => `tag-${i}`);
      const tricky = (i: number) => `[[{{ "quoted \\" ]] }} \\\\" ${i} [{"revisions":[`;
      const over = linearHistory(LIMITS.storage.maxBatchRevisions + 1).map((r) => ({ ...r, tags }));
      const refused = await write("Full_batch", JSON.stringify({ revisions: over }));
      expect(refused.status).toBe(413);
      expect(await refused.json()).toMatchObject({
        code: "batch_too_large",
        limit: { name: "storage.maxBatchRevisions" },
      });

      // The largest shape the API takes: every field and 16 tags on each of 500 revisions.
      const full = linearHistory(LIMITS.storage.maxBatchRevisions, 1, tricky).map((r) => ({
        ...r,
        format: "text/x-wiki",
        sha1: null,
        tags,
      }));
      const res = await write("Full_batch", chunked(enc.encode(JSON.stringify({ revisions: full })), 997));
      expect(res.status, await res.clone().text()).toBe(201);
      expect(await (await request(`/page/Full_batch/${LIMITS.storage.maxBatchRevisions}`)).text()).toBe(
        tricky(LIMITS.storage.maxBatchRevisions - 1),
      );
    },
  );

  it("bounds purge bodies the same way", { timeout: 60_000 }, async () => {
    const purge = (body: string) =>
      request("/api/purges", {
        method: "POST",
        headers: { ...bearer(TOKENS.operator), "content-type": "application/json" },
        body,
      });
    const deep = await purge(`{"tags":${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({ code: "json_too_deep", limit: { name: "http.maxJsonDepth" } });
    const many = await purge(
      `{"files":[${Array(LIMITS.purge.maxRequestBytes / 4)
        .fill("{}")
        .join(",")}]}`,
    );
    expect(many.status).toBe(413);
    expect(await many.json()).toMatchObject({
      code: "json_too_many_values",
      limit: { name: "http.maxJsonValues", value: LIMITS.http.maxJsonValues },
    });
    // A purge of 500 files with headers still passes.
    const files = Array.from({ length: LIMITS.purge.maxFiles }, (_, i) => ({
      url: `http://archive.test/page/P${i}`,
      headers: { accept: "text/html", "accept-encoding": "br" },
    }));
    expect((await purge(JSON.stringify({ files }))).status).toBe(202);
  });

  it("still answers reads and writes normally after the floods", async () => {
    expect((await write("After_flood", JSON.stringify({ revisions: linearHistory(2) }))).status).toBe(201);
    const res = await request("/page/After_flood");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(linearHistory(2)[1]!.text);
  });
});
