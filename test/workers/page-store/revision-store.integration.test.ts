import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { pageStoreOf } from "../../../src/bindings.ts";
import { TOKEN, append, appendOk, latestBody, linearHistory, request } from "../support/archive.ts";
import { inShard } from "../support/page-shards.ts";

const store = (key: string) => pageStoreOf(env, key);

describe("atomicity", () => {
  it("keeps readers on the previous manifest when a write fails between the blob writes and the commit", async () => {
    const key = "Atomic_page";
    await appendOk(key, linearHistory(20));
    const before = await latestBody(key);
    await inShard(key, (_sql, _db, instance) => {
      instance.faults.beforeCommit = () => {
        throw new Error("injected failure before commit");
      };
    });
    const failed = await append(key, linearHistory(21).slice(20));
    expect(failed.status).toBe(500);
    expect(await latestBody(key)).toBe(before);
    const history = await (
      await request(`/page/${key}/history?limit=1`)
    ).json<{
      total: number;
      revisions: Array<{ id: number }>;
    }>();
    expect(history.total).toBe(20);
    expect(history.revisions[0]!.id).toBe(20);
    expect((await request(`/page/${key}/21`)).status).toBe(404);
    // Blobs written for the failed commit are pending (collectable), not live.
    const stats = await inShard(key, (_sql, _db, instance) => {
      instance.faults = {};
      return instance.page(key).stats();
    });
    expect(stats.revisions).toBe(20);
    await appendOk(key, linearHistory(21).slice(20));
    expect(await latestBody(key)).toContain("Revision 20");
  });
});

describe("concurrency", () => {
  it("lets exactly one of two writers with the same parent win; the other gets 409 with the latest id", async () => {
    const key = "Contested_page";
    await appendOk(key, linearHistory(3));
    const [a, b] = linearHistory(4)
      .slice(3)
      .map((r) => [{ ...r }, { ...r, text: r.text + "other writer\n", contributor: "B" }])[0]!;
    const results = await Promise.all([append(key, [a!]), append(key, [{ ...b!, id: 99 }])]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409]);
    const loser = results.find((r) => r.status === 409)!;
    const problem = await loser.json<{ code: string; latest: number }>();
    expect(problem.code).toBe("parent_mismatch");
    expect([4, 99]).toContain(problem.latest);
  });
});

describe("idempotency", () => {
  it("accepts the same revision twice without storing it twice, and refuses the same id with other content", async () => {
    const key = "Idempotent_page";
    const revs = linearHistory(5);
    expect((await append(key, revs)).status).toBe(201);
    const again = await append(key, revs);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ created: [], existing: [1, 2, 3, 4, 5] });
    const clash = await append(key, [{ ...revs[4]!, text: "different" }]);
    expect(clash.status).toBe(409);
    expect(await clash.json()).toMatchObject({ code: "revision_id_reused", revision: 5, page: "Idempotent page" });
    expect(await latestBody(key)).toBe(revs[4]!.text);
  });

  it("stores identical revisions (a revert) once", async () => {
    const key = "Reverted_page";
    const revs = linearHistory(6, 1, (i) => (i === 4 ? "vandalism\n" : i === 5 ? "text 3\n" : `text ${i}\n`));
    await appendOk(key, revs);
    const stats = await inShard(key, (_sql, _db, instance) => instance.page(key).stats());
    expect(stats.revisions).toBe(6);
    expect(stats.contents).toBe(5);
    expect(await (await request(`/page/${key}/6`)).text()).toBe("text 3\n");
    expect(await (await request(`/page/${key}/4`)).text()).toBe("text 3\n");
  });
});

describe("suppression and deletion", () => {
  it("makes a suppressed revision 410 Gone while its metadata stays listed, and can restore it", async () => {
    const key = "Suppressed_page";
    await appendOk(key, linearHistory(4));
    const suppress = (suppressed: boolean) =>
      request(`/api/pages/${key}/revisions/2/suppression`, {
        method: "PUT",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ suppressed, reason: "a test takedown" }),
      });
    expect((await suppress(true)).status).toBe(200);
    const gone = await request(`/page/${key}/2`);
    expect(gone.status).toBe(410);
    expect(await gone.json()).toMatchObject({ code: "revision_suppressed", revision: 2 });
    const history = await (
      await request(`/page/${key}/history`)
    ).json<{
      revisions: Array<{ id: number; suppressed: boolean }>;
    }>();
    expect(history.revisions.find((r) => r.id === 2)).toMatchObject({ suppressed: true });
    expect((await request(`/page/${key}/3`)).status).toBe(200);
    expect((await suppress(false)).status).toBe(200);
    expect(await (await request(`/page/${key}/2`)).text()).toBe(linearHistory(4)[1]!.text);
  });

  it("deletes a page: reads answer 410, and the title can be created again", async () => {
    const key = "Deleted_page";
    await appendOk(key, linearHistory(3));
    const del = await request(`/api/pages/${key}?reason=a%20test%20deletion`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(del.status).toBe(200);
    expect((await request(`/page/${key}`)).status).toBe(410);
    expect((await request(`/page/${key}/history`)).status).toBe(410);
    await appendOk(key, linearHistory(2, 100));
    expect(await latestBody(key)).toBe(linearHistory(2, 100)[1]!.text);
  });
});

describe("reads", () => {
  it("resolves ?at= to the revision current at that time, in ISO-8601 and 14-digit forms", async () => {
    const key = "Timed_page";
    await appendOk(key, linearHistory(10));
    // Revision i has timestamp 2020-01-01T00:00:0iZ.
    const at = async (q: string) => (await request(`/page/${key}?at=${q}`)).headers.get("x-revision-id");
    expect(await at("2020-01-01T00:00:04Z")).toBe("5");
    expect(await at("20200101000004")).toBe("5");
    expect(await at("2020-01-01T00:00:04.500Z")).toBe("5");
    expect(await at("2030-01-01T00:00:00Z")).toBe("10");
    // Before the first revision, the first: as the TimeGate and /web/ choose (RFC 7089 leaves "best" to the server).
    expect(await at("2019-12-31T23:59:59Z")).toBe("1");
    const bad = await request(`/page/${key}?at=yesterday`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "invalid_timestamp" });
  });

  it("serves the model's content type, a strong ETag, and 304 on revalidation", async () => {
    const key = "Etag_page";
    await appendOk(key, linearHistory(2));
    const res = await request(`/page/${key}/2`);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    await res.arrayBuffer();
    const again = await request(`/page/${key}/2`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });

  it("redirects a non-canonical title to the canonical URL", async () => {
    const res = await request("/page/etag_page/2");
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("http://archive.test/page/Etag_page/2");
  });

  it("answers 404 problems for unknown pages and revisions", async () => {
    const missing = await request("/page/No_such_page");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toBe("application/problem+json");
    expect(await missing.json()).toMatchObject({ code: "page_not_found", page: "No such page" });
    await appendOk("Small_page", linearHistory(1));
    expect(await (await request("/page/Small_page/77")).json()).toMatchObject({
      code: "revision_not_found",
      page: "Small page",
    });
  });

  it("refuses to serve a corrupted blob, naming the page and revision", async () => {
    const key = "Corrupt_page";
    // Unique text: blobs are content-addressed, and an isolate may already hold a verified copy of a shared one.
    await appendOk(
      key,
      linearHistory(3, 1, (i) => `corruptible revision ${i}\n`),
    );
    const located = await store(key).locate({ kind: "id", id: 3 });
    if (!located.ok) throw new Error("locate failed");
    const blob = new Uint8Array((await env.BLOBS.get(located.location.blob, "arrayBuffer"))!);
    blob[blob.length - 3] = blob[blob.length - 3]! ^ 0x40;
    await env.BLOBS.put(located.location.blob, blob);
    const res = await request(`/page/${key}/3`);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ code: "revision_unreadable", page: "Corrupt page", revision: 3 });
  });
});
