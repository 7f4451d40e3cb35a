/**
 * A TierCache's SQLite holds at most its byte budget
 * (`LIMITS.tiers.storedBytes`), evicting the least recently read entries,
 * and a tier filled past it keeps answering correctly, with purges applied
 * to what remains. The budget is lowered through the tier's test hook
 * (`runInDurableObject`), so the walk crosses it without writing a gigabyte;
 * reads, purges and the stats all go through HTTP.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TierCache } from "../../../durable-objects/tier-cache.ts";
import { allTiers, tierName, upperTierFor, regionalTierFor } from "../../../src/bindings.ts";
import { revisionKey } from "../../../src/tiers/cache-key.ts";
import type { TiersBody } from "../../../src/wire.ts";
import { TOKEN, appendOk, linearHistory } from "../support/archive.ts";
import { get, login } from "../dashboard/support/dashboard.ts";
import { readFrom, tierCache, waitForAck } from "../support/tiers.ts";

const BUDGET = 128 * 1024;
const REVISIONS = 40;
const PAGE = "Budget_walk";
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

/** About 32 KB of words LZ4 cannot shrink much, different in every revision. */
function bulkyText(i: number): string {
  let seed = (i + 1) * 2654435761;
  const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % 26;
  const words: string[] = [`== Revision ${i} ==`];
  for (let n = 0; n < 5_000; n++)
    words.push(String.fromCharCode(97 + next(), 97 + next(), 97 + next(), 97 + next(), 97 + next()));
  return words.join(" ") + "\n";
}

async function tierStats(): Promise<Map<string, TiersBody["tiers"][number]>> {
  const res = await readFrom("LHR", "/api/tiers", { headers: auth });
  expect(res.status).toBe(200);
  const body = await res.json<TiersBody>();
  return new Map(body.tiers.map((t) => [t.tier, t]));
}

/** What the tier's SQLite holds, counted there: entries, their bytes as the usage row says and as entry_use sums, and tag rows left without an entry. */
function storedAt(stub: DurableObjectStub<TierCache>) {
  return runInDurableObject(stub, (instance: TierCache, state) => {
    const one = (q: string) => state.storage.sql.exec<{ n: number }>(q).one().n;
    return {
      stats: instance.stats(),
      entries: one("SELECT count(*) AS n FROM entries"),
      summed: one("SELECT coalesce(sum(size), 0) AS n FROM entry_use"),
      orphanTags: one("SELECT count(*) AS n FROM entry_tags WHERE key NOT IN (SELECT key FROM entries)"),
    };
  });
}

describe("a tier's storage budget", () => {
  it(
    "a tier filled past its budget keeps answering correctly, within the budget, with purges still applied",
    { timeout: 120_000 },
    async () => {
      const revs = linearHistory(REVISIONS, 1, bulkyText);
      await appendOk(PAGE, revs);
      for (const t of allTiers(env))
        await runInDurableObject(tierCache(t), (instance: TierCache) => instance.lowerStorageBudget(BUDGET));

      // Walk every old revision from one colo: each fills a weur regional tier and an upper tier.
      for (const [i, rev] of revs.entries()) {
        const res = await readFrom("LHR", `/page/${PAGE}/${rev.id}`);
        expect(res.status, `revision ${rev.id}`).toBe(200);
        expect(await res.text(), `revision ${rev.id}`).toBe(revs[i]!.text);
      }
      const walked = new Set(
        revs
          .flatMap((r) => [
            regionalTierFor(env, "weur", revisionKey(PAGE, r.id).key),
            upperTierFor(env, revisionKey(PAGE, r.id).key),
          ])
          .map(tierName),
      );
      const after = await tierStats();
      let evictions = 0;
      for (const name of walked) {
        const t = after.get(name)!;
        expect(t.budgetBytes, name).toBe(BUDGET);
        expect(t.storedBytes, name).toBeLessThanOrEqual(BUDGET);
        // SQLite's own count of its pages: the budget, plus the schema and free pages a delete left for the next put.
        expect(t.databaseBytes, name).toBeLessThan(2 * BUDGET);
        expect(t.entries, name).toBeGreaterThan(0);
        evictions += t.evictions;
      }
      // The walk stored far more than the budgets of the tiers it reached hold together: eviction happened.
      expect(evictions).toBeGreaterThan(REVISIONS / 2);
      for (const t of allTiers(env).filter((t) => walked.has(tierName(t)))) {
        const held = await storedAt(tierCache(t));
        expect(held.stats.entries, tierName(t)).toBe(held.entries);
        expect(held.stats.storedBytes, tierName(t)).toBe(held.summed);
        expect(held.orphanTags, tierName(t)).toBe(0);
      }

      // Again from another weur colo (its own lower tier): every byte right, whether the tier kept it or refilled it.
      for (const [i, rev] of revs.entries()) {
        const res = await readFrom("CDG", `/page/${PAGE}/${rev.id}`);
        expect(res.status, `revision ${rev.id}`).toBe(200);
        expect(await res.text(), `revision ${rev.id}`).toBe(revs[i]!.text);
      }
      // The revision read last is still held: a third colo is served it by the regional tier.
      const last = revs[REVISIONS - 1]!;
      const held = await readFrom("AMS", `/page/${PAGE}/${last.id}`);
      expect(held.headers.get("x-palimpsest-tier")).toBe("regional");
      expect(await held.text()).toBe(last.text);

      // Suppress it: once acknowledged, no colo of the region is served it, from any tier.
      const res = await readFrom("LHR", `/api/pages/${PAGE}/revisions/${last.id}/suppression`, {
        method: "PUT",
        headers: auth,
        body: JSON.stringify({ suppressed: true, reason: "a test takedown" }),
      });
      expect(res.status).toBe(200);
      const { purges } = await res.json<{ purges: string[] }>();
      await waitForAck(purges[0]!);
      for (const colo of ["LHR", "CDG", "AMS", "FRA"]) {
        const gone = await readFrom(colo, `/page/${PAGE}/${last.id}`);
        expect(gone.status, colo).toBe(410);
        expect(await gone.text(), colo).not.toContain(`== Revision ${REVISIONS - 1} ==`);
      }
      // The revisions before it are still served right.
      for (const rev of revs.slice(-4, -1))
        expect(await (await readFrom("FRA", `/page/${PAGE}/${rev.id}`)).text()).toBe(rev.text);
      for (const [name, t] of await tierStats())
        if (walked.has(name)) expect(t.storedBytes, name).toBeLessThanOrEqual(BUDGET);

      // The dashboard's health page shows each tier's use against the budget.
      const html = await (await get("/dashboard/health", await login())).text();
      const storage = html.slice(html.indexOf('id="storage-heading"'), html.indexOf('id="queues-heading"'));
      for (const name of walked)
        expect(storage).toMatch(
          new RegExp(`<th scope="row">${name}</th><td class="n">[^<]+</td><td class="n">128 KiB</td>`),
        );
    },
  );
});
