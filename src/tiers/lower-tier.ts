/**
 * The lower tier: the Cache API of the data centre that took the request.
 * Each entry remembers when it was filled. Younger than `refreshSeconds`:
 * served as is. Older, but younger than `maxStaleSeconds`: served, and
 * revalidated against the regional tier in the background (a matching ETag
 * just renews it). Older still: fetched again before answering. Refresh is
 * independent of the TTL, so a long TTL never delays noticing a write.
 */
import type { TierEntry } from "./entry.ts";
import type { Topology } from "./topology.ts";

const META = "x-pal-entry";
const FILLED = "x-pal-filled-at";

export type LowerState = "fresh" | "stale" | "expired";

export interface LowerHit {
  entry: TierEntry;
  state: LowerState;
  filledAt: number;
}

/** Per-isolate counters; the admin endpoint reports the isolate that answers it. */
export const lowerCounters = { hit: 0, miss: 0, stale: 0, revalidated: 0, renewed: 0 };

export class LowerTier {
  constructor(
    private readonly cache: Cache,
    private readonly topology: Topology,
  ) {}

  static async open(colo: string, topology: Topology): Promise<LowerTier> {
    return new LowerTier(await caches.open(`lower:${colo}`), topology);
  }

  #request(key: string): Request {
    return new Request(`https://lower.palimpsest.invalid${key}`);
  }

  async get(key: string, now = Date.now()): Promise<LowerHit | undefined> {
    const res = await this.cache.match(this.#request(key));
    if (!res) return undefined;
    const meta = JSON.parse(res.headers.get(META) ?? "null") as Omit<TierEntry, "body"> | null;
    const filledAt = Number(res.headers.get(FILLED));
    if (!meta || !Number.isFinite(filledAt)) return undefined;
    const entry: TierEntry = { ...meta, body: new Uint8Array(await res.arrayBuffer()) };
    const age = (now - filledAt) / 1000;
    const state: LowerState = age < this.topology.refreshSeconds ? "fresh" : age < this.topology.maxStaleSeconds ? "stale" : "expired";
    return { entry, state, filledAt };
  }

  async delete(key: string): Promise<void> {
    await this.cache.delete(this.#request(key));
  }

  /** Stores a 200 answer; any other answer removes what the colo held for the key. */
  async put(key: string, entry: TierEntry, now = Date.now()): Promise<void> {
    if (entry.status !== 200) {
      await this.delete(key);
      return;
    }
    const { body, ...meta } = entry;
    const headers = new Headers({
      [META]: JSON.stringify(meta),
      [FILLED]: String(now),
      // The Cache API evicts on its own TTL; refresh is tracked separately above.
      "cache-control": `public, max-age=${this.topology.ttlSeconds}`,
    });
    await this.cache.put(this.#request(key), new Response(body, { headers }));
  }
}
