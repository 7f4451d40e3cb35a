/**
 * Many pages share one PageStore shard (src/bindings.ts shardOf): each page
 * still has one writer, its own blobs and its own deletion, and one more
 * small page costs its rows, not a database of its own.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PageStore, shardCountChanged } from "../../../durable-objects/page-store.ts";
import { shardOf } from "../../../src/bindings.ts";
import { settingsOf } from "../../../src/config/settings.ts";
import type { PageListBody, StorageBody } from "../../../src/wire.ts";
import { clearBlobCache } from "../../../src/storage/blob-cache.ts";
import { TOKEN, append, appendOk, latestBody, linearHistory, request } from "../support/archive.ts";
import { inShard, liveBlobKeys, shardStub } from "../support/page-shards.ts";

/** `count` page keys starting with `prefix` that all live in one shard. */
function keysInOneShard(prefix: string, count: number): string[] {
  const byShard = new Map<string, string[]>();
  for (let i = 0; ; i++) {
    const key = `${prefix}_${i}`;
    const keys = byShard.get(shardOf(env, key)) ?? [];
    keys.push(key);
    byShard.set(shardOf(env, key), keys);
    if (keys.length === count) return keys;
  }
}

/** The page keys a shard holds rows for. */
const shardPages = (key: string) =>
  inShard(key, (sql) =>
    sql
      .exec<{ key: string }>("SELECT key FROM pages ORDER BY key")
      .toArray()
      .map((r) => r.key),
  );

const deleteForGood = (key: string) =>
  request(`/api/pages/${key}?reason=a%20test%20deletion`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${TOKEN}` },
  });

const setDeleted = (key: string, deleted: boolean) =>
  request(`/api/pages/${key}/deletion`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ deleted, reason: "a test deletion" }),
  });

async function listedKeys(prefix: string): Promise<string[]> {
  const all: string[] = [];
  for (let after: string | null = ""; after !== null;) {
    // Annotated, not inferred: the request depends on `after`, which comes from the body.
    const body: PageListBody = await (await request(`/api/pages?limit=500&after=${encodeURIComponent(after)}`)).json();
    all.push(...body.pages.map((p) => p.key));
    after = body.next;
  }
  return all.filter((k) => k.startsWith(prefix));
}

async function storage(): Promise<StorageBody> {
  const res = await request("/api/storage", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return res.json();
}

describe("pages sharing a shard", () => {
  it("take concurrent writes one writer each: every page ends with exactly its own revisions, none lost or mixed", async () => {
    const keys = keysInOneShard("Shared_writers", 4);
    const histories = keys.map((key, p) => linearHistory(24, 1, (i) => `page ${p} revision ${i}\n${key}\n`));
    const rivalText = (p: number) => `rival of page ${p}\n`;
    // All pages at once; on each, a rival writer races the first batch with another revision 1.
    const firsts = await Promise.all(
      keys.map(async (key, p) => {
        const [first, rival] = await Promise.all([
          append(key, histories[p]!.slice(0, 4)),
          append(key, [{ ...histories[p]![0]!, text: rivalText(p) }]),
        ]);
        // One writer per page: exactly one of the two went in.
        expect([first.status, rival.status].sort(), key).toEqual([201, 409]);
        if (first.status === 201) for (let i = 4; i < 24; i += 4) await appendOk(key, histories[p]!.slice(i, i + 4));
        return first.status === 201;
      }),
    );
    expect(await shardPages(keys[0]!)).toEqual(expect.arrayContaining(keys));
    for (const [p, key] of keys.entries()) {
      const history = await (await request(`/page/${key}/history?limit=50`)).json<{ total: number }>();
      if (!firsts[p]) {
        expect(history.total, key).toBe(1);
        expect(await latestBody(key)).toBe(rivalText(p));
        continue;
      }
      expect(history.total, key).toBe(24);
      for (const rev of histories[p]!) expect(await (await request(`/page/${key}/${rev.id}`)).text()).toBe(rev.text);
    }
  });

  it("are collected one page at a time: collecting a deleted page never takes a blob of another with the same content", async () => {
    const [gone, kept] = keysInOneShard("Same_content", 2);
    const revisions = linearHistory(40, 1, (i) => `same bytes in both pages ${i}\n${"== s ==\n".repeat(i % 5)}`);
    await appendOk(gone!, revisions);
    await appendOk(kept!, revisions);
    const keptBlobs = await liveBlobKeys(kept!);
    const goneBlobs = await liveBlobKeys(gone!);
    expect(keptBlobs.length).toBeGreaterThan(1);
    // Identical bytes, two key spaces.
    expect(keptBlobs.map((k) => k.slice(-64)).sort()).toEqual(goneBlobs.map((k) => k.slice(-64)).sort());
    expect(keptBlobs.filter((k) => goneBlobs.includes(k))).toEqual([]);

    expect((await deleteForGood(gone!)).status).toBe(200);
    await inShard(gone!, (sql) => void sql.exec("UPDATE blobs SET since = 0 WHERE state != 'live'"));
    await runDurableObjectAlarm(shardStub(gone!));
    for (const key of goneBlobs) expect(await env.BLOBS.get(key, "arrayBuffer"), key).toBeNull();
    for (const key of keptBlobs) expect(await env.BLOBS.get(key, "arrayBuffer"), key).not.toBeNull();
    clearBlobCache();
    for (const r of revisions) expect(await (await request(`/page/${kept}/${r.id}`)).text()).toBe(r.text);
  });

  it("are deleted one page at a time: a page deleted for good and one deleted restorably leave their neighbours readable and listed", async () => {
    const [erased, hidden, neighbour] = keysInOneShard("Deleted_neighbour", 3);
    for (const key of [erased!, hidden!, neighbour!])
      await appendOk(
        key,
        linearHistory(5, 1, (i) => `${key} ${i}\n`),
      );
    expect((await deleteForGood(erased!)).status).toBe(200);
    expect((await setDeleted(hidden!, true)).status).toBe(200);
    expect((await request(`/page/${erased}`)).status).toBe(410);
    expect((await request(`/page/${hidden}`)).status).toBe(410);
    expect(await latestBody(neighbour!)).toBe(`${neighbour} 4\n`);
    expect((await request(`/page/${neighbour}/history`)).status).toBe(200);
    expect(await listedKeys("Deleted_neighbour")).toEqual([neighbour]);

    expect((await setDeleted(hidden!, false)).status).toBe(200);
    expect(await latestBody(hidden!)).toBe(`${hidden} 4\n`);
    expect(await latestBody(neighbour!)).toBe(`${neighbour} 4\n`);
    expect((await listedKeys("Deleted_neighbour")).sort()).toEqual([hidden, neighbour].sort());
  });

  it("cost their rows only: one more page of one 1 KB revision adds at most 1 KB of SQLite to a shard of many pages", async () => {
    const keys = keysInOneShard("Small_page", 260);
    const write = async (batch: string[]) => {
      for (let i = 0; i < batch.length; i += 10)
        await Promise.all(
          batch.slice(i, i + 10).map((key, j) =>
            appendOk(
              key,
              linearHistory(1, 1, () => `${key} ${"lorem ipsum dolor sit amet ".repeat(37)}${i + j}\n`),
            ),
          ),
        );
    };
    await write(keys.slice(0, 200));
    const shardBytes = () => inShard(keys[0]!, (sql) => sql.databaseSize);
    const before = await shardBytes();
    await write(keys.slice(200));
    const after = await shardBytes();
    // Pages of SQLite come 4 KiB at a time: averaged over 60 pages.
    const perPage = (after - before) / 60;
    expect(perPage).toBeLessThanOrEqual(1024);
    // A database per page cost 61,440 bytes before its first row; this shard holds 260 pages in less.
    expect(after).toBeLessThan(260 * 1024 + 65_536);
    const totals = await storage();
    expect(totals.total.shards).toBe(settingsOf(env).pageStoreShards);
    const shard = totals.shards.find((s) => s.databaseBytes === after);
    expect(shard?.pages).toBeGreaterThanOrEqual(260);
    // Each page's stats name its share of the shard, which adds up to the shard.
    const stats = await (
      await request(`/api/pages/${keys[0]}/stats`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json<{ metadataBytes: number }>();
    expect(stats.metadataBytes).toBeGreaterThan(0);
    expect(stats.metadataBytes).toBeLessThan(after / 100);
  }, 120_000);

  it("refuse to answer under another shard count than the one they were created under, naming the fix", async () => {
    const [key] = keysInOneShard("Shard_count", 1);
    await appendOk(key!, linearHistory(1));
    const message = await runInDurableObject(shardStub(key!), (_: PageStore, state) => {
      const sql = state.storage.sql;
      const recorded = sql.exec<{ v: number }>("SELECT v FROM kv WHERE pg = 0 AND k = 'shards'").one().v;
      sql.exec("UPDATE kv SET v = ? WHERE pg = 0 AND k = 'shards'", recorded + 1);
      try {
        new PageStore(state, env).page(key!);
        return "answered";
      } catch (err) {
        return (err as Error).message;
      } finally {
        sql.exec("UPDATE kv SET v = ? WHERE pg = 0 AND k = 'shards'", recorded);
      }
    });
    const now = settingsOf(env).pageStoreShards;
    expect(message).toBe(shardCountChanged(now + 1, now));
    expect(message).toContain(`PAGE_STORE_SHARDS back to ${now + 1}`);
    expect(await latestBody(key!)).toBe(linearHistory(1)[0]!.text);
  });
});
