import { env, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { PurgeQueue } from "../../../durable-objects/purge-queue.ts";
import type { TierCache } from "../../../durable-objects/tier-cache.ts";
import { mulberry32 } from "../../../src/lib/mulberry32.ts";
import type { PageStore } from "../../../durable-objects/page-store.ts";
import { allTiers, pageStoreShards } from "../../../src/bindings.ts";
import { TOKEN, append, linearHistory, request } from "../support/archive.ts";
import { ONE_COLO_PER_REGION, readFrom, tierCache, waitForAck } from "../support/tiers.ts";

const PREFIX = "Nobody_wrote_";

async function tierRowsFor(prefix: string): Promise<number> {
  let rows = 0;
  for (const t of allTiers(env)) {
    rows += await runInDurableObject(
      tierCache(t),
      (_: TierCache, state) =>
        state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM entries WHERE page LIKE ?", `${prefix}%`).one()
          .n,
    );
  }
  return rows;
}

describe("reads create no storage", () => {
  it(
    "answers 10,000 GETs of random titles with 404, creating no PageStore, no blob and no stored tier entry",
    { timeout: 300_000 },
    async () => {
      const rand = mulberry32(8);
      const titles = Array.from({ length: 10_000 }, (_, i) => `${PREFIX}${i}_${Math.floor(rand() * 1e9).toString(36)}`);
      const kinds = (t: string, i: number) =>
        [`/page/${t}`, `/page/${t}/history`, `/page/${t}/${i + 1}`, `/page/${t}?at=20200101000000`][i % 4]!;
      const blobsBefore = (await env.BLOBS.list({ prefix: "blob/" })).keys.length;
      let next = 0;
      const statuses = new Map<number, number>();
      await Promise.all(
        Array.from({ length: 24 }, async () => {
          while (next < titles.length) {
            const i = next++;
            const res = await readFrom(ONE_COLO_PER_REGION[i % ONE_COLO_PER_REGION.length]!, kinds(titles[i]!, i));
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            await res.arrayBuffer();
          }
        }),
      );
      expect(Object.fromEntries(statuses)).toEqual({ 404: 10_000 });
      // No shard took a row for any of them (shards other test files wrote to exist, with their pages).
      const shards = new Set((await listDurableObjectIds(env.PAGE_STORE)).map((id) => id.toString()));
      let rows = 0;
      for (const stub of pageStoreShards(env)) {
        if (!shards.has(stub.id.toString())) continue;
        rows += await runInDurableObject(stub, (_: PageStore, state) => {
          const sql = state.storage.sql;
          if (sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'pages'").toArray().length === 0) return 0;
          return sql.exec<{ n: number }>("SELECT count(*) AS n FROM pages WHERE key LIKE ?", `${PREFIX}%`).one().n;
        });
      }
      expect(rows).toBe(0);
      // Other test files write blobs meanwhile; none of these titles can own one, having no PageStore.
      expect((await env.BLOBS.list({ prefix: "blob/" })).keys.length).toBeGreaterThanOrEqual(blobsBefore);
      expect(await tierRowsFor(PREFIX)).toBe(0);
    },
  );

  it("keeps a 404 briefly and drops it when the page is first written", async () => {
    const page = "Written_after_404";
    expect((await readFrom("SYD", `/page/${page}`)).status).toBe(404);
    // The lower tier stores in the background; give it a moment.
    let cached = await readFrom("SYD", `/page/${page}`);
    for (let i = 0; i < 20 && cached.headers.get("x-palimpsest-tier") !== "lower"; i++) {
      await new Promise((r) => setTimeout(r, 25));
      cached = await readFrom("SYD", `/page/${page}`);
    }
    expect(cached.status).toBe(404);
    expect(cached.headers.get("x-palimpsest-tier")).toBe("lower");
    const res = await append(page, linearHistory(1), undefined, "LHR");
    expect(res.status).toBe(201);
    await waitForAck((await res.json<{ purges: string[] }>()).purges[0]!);
    const now = await readFrom("SYD", `/page/${page}`);
    expect(now.status).toBe(200);
    expect(await now.text()).toBe(linearHistory(1)[0]!.text);
  });
});

describe("purge status for ids nobody issued", () => {
  const get = (id: string) => request(`/api/purges/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });

  it("answers 404 for a queue the topology does not have, without creating it", async () => {
    for (const id of ["zz-q0:1", "apac-q9:1", "apac-q99:1"]) {
      const res = await get(id);
      expect(res.status, id).toBe(404);
      expect(await res.json()).toMatchObject({ code: "purge_not_found" });
    }
    const queues = new Set((await listDurableObjectIds(env.PURGE_QUEUE)).map((id) => id.toString()));
    for (const name of ["zz-q0", "apac-q9", "apac-q99"])
      expect(queues.has(env.PURGE_QUEUE.idFromName(name).toString()), name).toBe(false);
  });

  it("answers 404 for a sequence a queue never logged, and a never-used queue creates no table when asked", async () => {
    const res = await get("oc-q1:999999999");
    expect(res.status).toBe(404);
    const unused = env.PURGE_QUEUE.getByName("never-used-queue");
    expect(await unused.status(1)).toBeNull();
    expect((await unused.load()).lastSeq).toBe(0);
    const tables = await runInDurableObject(unused, (_: PurgeQueue, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master").toArray(),
    );
    expect(tables).toEqual([]);
  });

  it("refuses a malformed id with 400", async () => {
    expect((await get("not-a-purge")).status).toBe(400);
  });
});
