/**
 * Applying purge events at a tier. Every kind of tier turns an event into
 * the same two moves: raise the page's version floor (a write's for its
 * mutable keys, a removal's for all of them) and drop what the floor now
 * forbids; `everything`, or a flush, drops all. Floors only rise, so
 * replaying an event is harmless.
 */
import { tierCacheOf } from "../bindings.ts";
import { settingsOf } from "../config/settings.ts";
import type { PageFloor } from "../tiers/floor.ts";
import { LowerTier } from "../tiers/lower-tier.ts";
import type { TierStore } from "../tiers/tier-store.ts";
import type { PurgeEvent, PurgeScope } from "./events.ts";
import type { PurgeBatch } from "./plan.ts";
import { ZONE_MEMBER, type PurgeTarget } from "./targets.ts";
import { zonePurge } from "./zone-purge.ts";

/** The floor a page-scoped purge raises. */
export function floorRaisedBy(scope: Exclude<PurgeScope, { kind: "everything" }>, version: number): Partial<PageFloor> {
  return scope.kind === "mutable" ? { mutable: version } : { all: version };
}

/** Applies events from one queue to a TierCache's store, in order, skipping any already applied; returns the last applied sequence. */
export function applyToTier(store: TierStore, queue: string, batch: PurgeBatch): number {
  return store.transaction(() => {
    let applied = store.appliedSeq(queue);
    if (batch.flushUpTo !== undefined && batch.flushUpTo > applied) {
      store.dropAll();
      store.count("flush");
      applied = batch.flushUpTo;
    }
    for (const event of batch.events) {
      if (event.seq <= applied) continue;
      store.count("purge");
      if (event.scope.kind === "everything" || event.page === null) store.dropAll();
      else {
        store.raiseFloor(event.page, floorRaisedBy(event.scope, event.version));
        store.dropPage(event.page, event.scope.kind === "mutable");
      }
      applied = event.seq;
    }
    store.setApplied(queue, applied);
    return applied;
  });
}

/** Applies events to one colo's lower tier: in development, where each simulated colo's cache is reachable. */
export class LowerTierPurges {
  constructor(private readonly lower: LowerTier) {}

  async applyPurges(batch: PurgeBatch, now = Date.now()): Promise<number> {
    let last = batch.flushUpTo ?? 0;
    if (batch.flushUpTo !== undefined) await this.lower.flush(now);
    for (const { page, scope, version, createdAt, seq } of batch.events) {
      if (scope.kind === "everything" || page === null) await this.lower.flush(createdAt);
      else await this.lower.raiseFloor(page, floorRaisedBy(scope, version));
      last = Math.max(last, seq);
    }
    return last;
  }
}

/** Applies a batch at one target, wherever it is; returns the last sequence it has applied. */
export async function applyAt(env: Env, target: PurgeTarget, queue: string, batch: PurgeBatch): Promise<number> {
  if (target.level !== "lower") return tierCacheOf(env, target).applyPurges(queue, batch);
  const settings = settingsOf(env);
  if (target.member !== ZONE_MEMBER) return new LowerTierPurges(await LowerTier.open(env, target.member)).applyPurges(batch);
  const { events, flushUpTo } = batch;
  const flush: PurgeEvent[] = flushUpTo === undefined ? [] : [{ page: null, scope: { kind: "everything" }, version: 0, region: target.region, seq: flushUpTo, id: "", queue, createdAt: Date.now() }];
  if (events.length + flush.length > 0) await zonePurge(settings, [...flush, ...events]);
  return Math.max(flushUpTo ?? 0, ...events.map((e) => e.seq));
}

/**
 * The writer's own colo applies its write's purge at once (the design's
 * ingest step 4), so it serves the write on the next read; every other colo
 * gets it from the queues.
 */
export async function purgeHere(env: Env, colo: string, page: string, scope: Exclude<PurgeScope, { kind: "everything" }>, version: number): Promise<void> {
  const lower = await LowerTier.open(env, colo);
  await lower.raiseFloor(page, floorRaisedBy(scope, version));
}
