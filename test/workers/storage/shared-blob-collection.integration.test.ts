import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { clearBlobCache } from "../../../src/storage/blob-cache.ts";
import { TOKEN, appendOk, linearHistory, request } from "../support/archive.ts";
import { inShard, liveBlobKeys, shardStub as store } from "../support/page-shards.ts";

describe("collection of blobs two pages would share", () => {
  it("never deletes a blob another page still names: delete one of two identical pages, collect, and the other reads back byte for byte", async () => {
    // Identical texts (a page moved by re-import, a template copied): content-addressed blobs would coincide.
    const revisions = linearHistory(40, 1, (i) => `shared text ${i}\n${"== section ==\n".repeat(i % 5)}`);
    await appendOk("Shared_original", revisions);
    await appendOk("Shared_copy", revisions);
    const kept = await liveBlobKeys("Shared_copy");
    expect(kept.length).toBeGreaterThan(1);

    const del = await request("/api/pages/Shared_original?reason=a%20test%20deletion", {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(del.status).toBe(200);
    // Run collection as if the grace period had passed.
    await inShard(
      "Shared_original",
      (sql, db) => void sql.exec("UPDATE blobs SET since = 0 WHERE pg = ? AND state != 'live'", db.pg),
    );
    await runDurableObjectAlarm(store("Shared_original"));
    const left = await inShard(
      "Shared_original",
      (sql, db) => sql.exec<{ n: number }>("SELECT count(*) AS n FROM blobs WHERE pg = ?", db.pg).one().n,
    );
    expect(left).toBe(0);

    for (const key of kept) expect(await env.BLOBS.get(key, "arrayBuffer"), key).not.toBeNull();
    clearBlobCache(); // read what KV holds, not what this isolate parsed earlier
    for (const r of revisions) {
      const res = await request(`/page/Shared_copy/${r.id}`, { headers: { "x-palimpsest-colo": "SCL" } });
      expect(res.status, `revision ${r.id}`).toBe(200);
      expect(await res.text()).toBe(r.text);
    }
  });
});
