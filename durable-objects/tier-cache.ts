/**
 * TierCache: a regional or upper cache tier. This class is storage and RPC
 * only: what it keeps, within `LIMITS.tiers.storedBytes`, is src/tiers/tier-store.ts, how a read goes through it
 * (hit, coalesced fill from the hops below) is src/tiers/chain.ts, and how a
 * purge applies to it is src/purge/apply.ts.
 */
import { DurableObject } from "cloudflare:workers";
import type { TierIdentity } from "../src/bindings.ts";
import { topologyOf } from "../src/config/topology.ts";
import { LIMITS } from "../src/limits.ts";
import { applyBatchesToTier, type Applied, type QueuedBatch } from "../src/purge/apply.ts";
import { readAtTier } from "../src/tiers/chain.ts";
import type { Answer } from "../src/origin/answer.ts";
import type { CacheKey } from "../src/tiers/cache-key.ts";
import type { TierRead, TierRequest } from "../src/tiers/request.ts";
import { TierStore, type TierStats } from "../src/tiers/tier-store.ts";

/** Test hook: makes the tier refuse all calls, as if it were cut off. */
export interface TierFaults {
  unavailable?: boolean;
  /** Reads wait this long before answering, as if the tier were overloaded. */
  delayMs?: number;
}

export class TierCache extends DurableObject<Env> {
  faults: TierFaults = {};
  readonly #store: TierStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new TierStore(ctx.storage, topologyOf(env).notFoundSeconds, LIMITS.tiers.storedBytes);
  }

  /** Serves a read from this tier, filling from the hops below on a miss. */
  async read(request: TierRequest, self: TierIdentity, revalidation = false): Promise<TierRead> {
    this.#reachable();
    if (this.faults.delayMs) await new Promise((r) => setTimeout(r, this.faults.delayMs));
    return readAtTier(this.env, this.#store, self, request, revalidation, (p) => this.ctx.waitUntil(p));
  }

  /**
   * Keeps an answer another member of this tier's pool took, under `key`, which lives here: a latest
   * answer's copy under its revision's key, or an answer the origin rendered beside the one that member
   * asked for (src/tiers/copies.ts). Refused, as any fill is, if this tier's floor or purge marks forbid it.
   */
  keepCopy(key: CacheKey, answer: Answer): void {
    this.#reachable();
    this.#store.keep(key, answer);
  }

  /**
   * Applies queues' purge events in order, skipping any already applied, in one transaction; returns the last applied
   * sequence of each.
   */
  applyPurges(parts: QueuedBatch[]): Applied {
    this.#reachable();
    return applyBatchesToTier(this.#store, parts);
  }

  /**
   * Sets the test hook from outside the Worker's isolate: only the development-only route in
   * workers/routes/admin/dev-fault-routes.ts calls this.
   */
  setFaults(faults: TierFaults): void {
    this.faults = { ...faults };
  }

  /**
   * Test hook: lowers this tier's storage budget (never above
   * `LIMITS.tiers.storedBytes`), so a test fills a tier past its budget
   * without writing a gigabyte. Until the object restarts; no route calls it.
   */
  lowerStorageBudget(bytes: number): void {
    this.#store.lowerBudget(bytes);
  }

  stats(): TierStats {
    return this.#store.stats();
  }

  #reachable(): void {
    if (this.faults.unavailable) throw new Error("tier unavailable (injected fault)");
  }
}
