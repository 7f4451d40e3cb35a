import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { appendOk, latestBody, linearHistory, request } from "../support/archive.ts";
import { inShard, shardStub as store } from "../support/page-shards.ts";

async function blobRows(key: string) {
  return inShard(key, (sql, db) =>
    sql.exec<{ key: string; state: string }>("SELECT key, state FROM blobs WHERE pg = ?", db.pg).toArray(),
  );
}

describe("blob collection", () => {
  it("collects superseded and orphaned blobs only after the grace period, never live ones", async () => {
    const key = "Collected_page";
    const revs = linearHistory(40);
    // One revision at a time: tails are written, then folded into group blobs, leaving dead blobs.
    for (let i = 0; i < 20; i++) await appendOk(key, [revs[i]!]);
    await inShard(key, (_sql, _db, instance) => {
      instance.faults.beforeCommit = () => {
        throw new Error("injected");
      };
    });
    expect((await request(`/api/pages/${key}/revisions`, { method: "POST" })).status).toBe(401);
    const failed = await request(`/api/pages/${key}/revisions`, {
      method: "POST",
      headers: {
        authorization: "Bearer test-write-token-5c1f9a7e3b8d2f60a4c9e1b7",
        "content-type": "application/json",
      },
      body: JSON.stringify({ revisions: [revs[20]] }),
    });
    expect(failed.status).toBe(500);
    await inShard(key, (_sql, _db, instance) => void (instance.faults = {}));

    const before = await blobRows(key);
    const dead = before.filter((b) => b.state !== "live");
    expect(before.some((b) => b.state === "dead")).toBe(true);
    expect(before.some((b) => b.state === "pending")).toBe(true);
    // Within the grace period nothing goes, even if the alarm fires.
    await runDurableObjectAlarm(store(key));
    for (const b of dead) expect(await env.BLOBS.get(b.key, "arrayBuffer")).not.toBeNull();

    // Past the grace period the alarm deletes them, and only them.
    await inShard(
      key,
      (sql, db) =>
        void sql.exec("UPDATE blobs SET since = since - ? WHERE pg = ? AND state != 'live'", 600_000 + 1000, db.pg),
    );
    await runDurableObjectAlarm(store(key));
    for (const b of dead) expect(await env.BLOBS.get(b.key, "arrayBuffer")).toBeNull();
    const after = await blobRows(key);
    expect(after.every((b) => b.state === "live")).toBe(true);
    for (const b of after) expect(await env.BLOBS.get(b.key, "arrayBuffer")).not.toBeNull();
    for (let id = 1; id <= 20; id++)
      expect(await (await request(`/page/${key}/${id}`)).text()).toBe(revs[id - 1]!.text);
    expect(await latestBody(key)).toBe(revs[19]!.text);
  });
});
