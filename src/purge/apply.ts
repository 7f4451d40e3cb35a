/**
 * Applying purge events at a tier. Every kind of tier turns an event into
 * the same moves: a write's purge raises the page's version floor (for its
 * mutable keys, or for all of them on a removal) and drops what the floor
 * now forbids; an operator's purge raises purge marks by key, tag, prefix or
 * for everything, and, unless soft, drops what they cover; a flush drops
 * all. Floors and marks only rise, so replaying an event is harmless.
 */
import { tierCacheOf } from "../bindings.ts";
import { settingsOf } from "../config/settings.ts";
import { NO_FLOOR, raised, type PageFloor } from "../tiers/floor.ts";
import { LowerTier } from "../tiers/lower-tier.ts";
import type { TierStore } from "../tiers/tier-store.ts";
import { ALL } from "../tiers/purge-marks.ts";
import { selectorsOfScope, type OperatorPurgeRequest, type PageScope, type PurgeRequest } from "./events.ts";
import type { PurgeBatch } from "./plan.ts";
import { ZONE_MEMBER, type PurgeTarget } from "./targets.ts";
import { zonePurge } from "./zone-purge.ts";

/** The floor a page-scoped purge raises. */
export function floorRaisedBy(scope: PageScope, version: number): Partial<PageFloor> {
  return scope.kind === "mutable" ? { mutable: version } : { all: version };
}

/** The marks an operator's purge raises: its selectors, at its mark's time. */
function marksOf(event: OperatorPurgeRequest): { selectors: string[]; at: number; soft: boolean } {
  return { selectors: selectorsOfScope(event.scope), at: event.mark.at, soft: event.mark.soft };
}

/** One queue's events for one target. */
export interface QueuedBatch {
  queue: string;
  batch: PurgeBatch;
}

/** The last sequence a target has applied of each queue's batch. */
export type Applied = Array<{ queue: string; seq: number }>;

/** Applies several queues' batches to a TierCache's store in one transaction. */
export function applyBatchesToTier(store: TierStore, parts: QueuedBatch[]): Applied {
  return store.transaction(() => parts.map(({ queue, batch }) => ({ queue, seq: applyToTier(store, queue, batch) })));
}

/**
 * Applies events from one queue to a TierCache's store, in order, skipping any already applied; returns the last
 * applied sequence. Inside the caller's transaction.
 */
function applyToTier(store: TierStore, queue: string, batch: PurgeBatch): number {
  let applied = store.appliedSeq(queue);
  if (batch.flushUpTo !== undefined && batch.flushUpTo > applied) {
    // The missed events may have been marks: nothing made before now may come back from a tier below either.
    store.mark([ALL], Date.now(), false);
    store.count("flush");
    applied = batch.flushUpTo;
  }
  for (const event of batch.events) {
    if (event.seq <= applied) continue;
    store.count("purge");
    if (event.page !== null) {
      store.raiseFloor(event.page, floorRaisedBy(event.scope, event.version));
      store.dropPage(event.page, event.scope.kind === "mutable", event.version);
    } else {
      const { selectors, at, soft } = marksOf(event);
      store.mark(selectors, at, soft);
    }
    applied = event.seq;
  }
  if (applied !== store.appliedSeq(queue)) store.setApplied(queue, applied);
  return applied;
}

/**
 * Applies events to one colo's lower tier: in development, where each
 * simulated colo's cache is reachable. However many events and queues, a
 * colo pays one write per page floor raised and one of its marks record:
 * each is a Cache API read and write, the dearest step of a purge.
 */
export class LowerTierPurges {
  constructor(private readonly lower: LowerTier) {}

  async applyPurges(parts: QueuedBatch[], now = Date.now()): Promise<Applied> {
    const flushed = parts.some(({ batch }) => batch.flushUpTo !== undefined);
    await this.applyEvents(
      parts.flatMap(({ batch }) => batch.events),
      flushed ? now : undefined,
    );
    return parts.map(({ queue, batch }) => ({
      queue,
      seq: Math.max(batch.flushUpTo ?? 0, ...batch.events.map((e) => e.seq)),
    }));
  }

  /**
   * Raises each page's floor once, to the highest the events ask, and every mark in one write; `flushAt` first marks
   * everything gone.
   */
  async applyEvents(events: readonly PurgeRequest[], flushAt?: number): Promise<void> {
    const floors = new Map<string, PageFloor>();
    const marks = flushAt === undefined ? [] : [{ selectors: [ALL], at: flushAt, soft: false }];
    for (const event of events) {
      if (event.page !== null)
        floors.set(event.page, raised(floors.get(event.page) ?? NO_FLOOR, floorRaisedBy(event.scope, event.version)));
      else marks.push(marksOf(event));
    }
    await Promise.all([
      ...[...floors].map(([page, to]) => this.lower.raiseFloor(page, to)),
      ...(marks.length > 0 ? [this.lower.markAll(marks)] : []),
    ]);
  }
}

/** Applies one event to a colo's lower tier. */
export function applyToLower(lower: LowerTier, event: PurgeRequest): Promise<void> {
  return new LowerTierPurges(lower).applyEvents([event]);
}

/** Applies a batch at one target, wherever it is; returns the last sequence it has applied. */
export async function applyAt(env: Env, target: PurgeTarget, queue: string, batch: PurgeBatch): Promise<number> {
  return (await applyBatchesAt(env, target, [{ queue, batch }]))[0]!.seq;
}

/** Applies several queues' batches at one target in one go; returns the last sequence applied of each. */
export async function applyBatchesAt(env: Env, target: PurgeTarget, parts: QueuedBatch[]): Promise<Applied> {
  if (target.level !== "lower") return tierCacheOf(env, target).applyPurges(parts);
  if (target.member !== ZONE_MEMBER)
    return new LowerTierPurges(await LowerTier.open(env, target.member)).applyPurges(parts);
  const events = parts.flatMap(({ batch: { events, flushUpTo } }) => [
    ...(flushUpTo === undefined ? [] : [{ page: null, scope: { kind: "everything" } } as const]),
    ...events,
  ]);
  if (events.length > 0) await zonePurge(settingsOf(env), events);
  return parts.map(({ queue, batch }) => ({
    queue,
    seq: Math.max(batch.flushUpTo ?? 0, ...batch.events.map((e) => e.seq)),
  }));
}

/**
 * The writer's own colo applies its write's purge at once (the design's
 * ingest step 4), so it serves the write on the next read; every other colo
 * gets it from the queues.
 */
export async function purgeHere(
  env: Env,
  colo: string,
  page: string,
  scope: PageScope,
  version: number,
): Promise<void> {
  const lower = await LowerTier.open(env, colo);
  await lower.raiseFloor(page, floorRaisedBy(scope, version));
}
