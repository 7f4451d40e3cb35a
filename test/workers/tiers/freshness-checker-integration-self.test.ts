import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../src/random/mulberry32.ts";
import { topologyOf } from "../../../src/tiers/topology.ts";
import { append, appendOk, linearHistory } from "../support/archive.ts";
import { readFrom, waitForAck } from "../support/tiers.ts";


describe("randomized freshness checker", () => {
  it("never serves a version older than an acknowledged write, beyond the lower tier's max-stale bound", async () => {
    const seed = Number((globalThis as { process?: { env?: Record<string, string> } }).process?.env?.CHECKER_SEED ?? 20261122);
    const rand = mulberry32(seed);
    const topology = topologyOf(env);
    const colos = [...topology.regionOfColo.keys()];
    const pages = ["Chk_a", "Chk_b", "Chk_c", "Chk_d"];
    const histories = new Map(pages.map((p, i) => [p, linearHistory(8, 1, (n) => `page ${i} revision ${n}\n`)]));
    for (const p of pages) await appendOk(p, histories.get(p)!.slice(0, 1));
    const acked = new Map<string, Array<{ rev: number; at: number }>>(pages.map((p) => [p, [{ rev: 1, at: 0 }]]));

    const writer = async (page: string) => {
      const revs = histories.get(page)!;
      for (let i = 1; i < revs.length; i++) {
        const res = await append(page, [revs[i]!]);
        expect(res.status).toBe(201);
        const { purges } = (await res.json()) as { purges: string[] };
        await waitForAck(purges[0]!);
        acked.get(page)!.push({ rev: i + 1, at: Date.now() });
        await new Promise((r) => setTimeout(r, rand() * 40));
      }
    };
    const reads: Array<{ page: string; colo: string; start: number; rev: number; tier: string }> = [];
    const reader = async () => {
      for (let i = 0; i < 40; i++) {
        const page = pages[Math.floor(rand() * pages.length)]!;
        const colo = colos[Math.floor(rand() * colos.length)]!;
        const start = Date.now();
        const res = await readFrom(colo, `/page/${page}`);
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        reads.push({ page, colo, start, rev: Number(res.headers.get("x-revision-id")), tier: res.headers.get("x-palimpsest-tier")! });
      }
    };
    await Promise.all([...pages.map(writer), reader(), reader(), reader()]);

    const violations = reads.filter((r) => {
      const floor = Math.max(...acked.get(r.page)!.filter((w) => w.at < r.start).map((w) => w.rev));
      if (r.rev >= floor) return false;
      // A lower tier may serve a copy up to max-stale old; everything else must be current.
      const overdue = acked.get(r.page)!.find((w) => w.rev > r.rev && w.at < r.start)!;
      return r.tier !== "lower" || r.start - overdue.at > topology.maxStaleSeconds * 1000;
    });
    expect(violations, `seed ${seed}`).toEqual([]);
    expect(reads.length).toBe(120);
  });
});
