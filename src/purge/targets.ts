/**
 * Everything a purge must reach, and how to reach each. Regional and upper
 * tiers are TierCache objects. Lower tiers are the Cache API of each data
 * centre: in development one target per simulated colo, applied directly; in
 * production one target, Cloudflare's purge API, which reaches every colo.
 */
import { settingsOf } from "../config/settings.ts";
import { LowerTier } from "../tiers/lower-tier.ts";
import { allTiers, tierName, tierStub, type TierIdentity } from "../tiers/tier-names.ts";
import { topologyOf, type Region } from "../config/topology.ts";
import type { PurgeEvent } from "./events.ts";
import { zonePurge } from "./zone-purge.ts";

/** A data centre's lower tier (`member` is its colo), or `member: "zone"`, all of them through the purge API. */
export interface LowerTarget {
  level: "lower";
  region: Region;
  member: string;
}

export type PurgeTarget = TierIdentity | LowerTarget;

export const ZONE_MEMBER = "zone";

export function targetName(t: PurgeTarget): string {
  return t.level === "lower" ? `lower/${t.member}` : tierName(t);
}

export function lowerTargets(env: Env): LowerTarget[] {
  const topology = topologyOf(env);
  if (!settingsOf(env).development) return [{ level: "lower", region: topology.upperRegion, member: ZONE_MEMBER }];
  return [...topology.regionOfColo].map(([colo, region]) => ({ level: "lower", region, member: colo }));
}

/** Every target, lower tiers first: the order purge status lists them in. */
export function purgeTargets(env: Env): PurgeTarget[] {
  return [...lowerTargets(env), ...allTiers(env)];
}

/** Applies events at one target; returns the last sequence it has applied. */
export async function applyAt(env: Env, target: PurgeTarget, queue: string, events: PurgeEvent[], flushUpTo?: number): Promise<number> {
  if (target.level !== "lower") return tierStub(env, target).applyPurges(queue, events, flushUpTo);
  const settings = settingsOf(env);
  if (target.member === ZONE_MEMBER) {
    const flush: PurgeEvent[] = flushUpTo === undefined ? [] : [{ page: null, scope: { kind: "everything" }, version: 0, region: target.region, seq: flushUpTo, id: "", queue, createdAt: Date.now() }];
    if (events.length + flush.length > 0) await zonePurge(settings, [...flush, ...events]);
    return Math.max(flushUpTo ?? 0, ...events.map((e) => e.seq));
  }
  const lower = await LowerTier.open(target.member, topologyOf(env), settings);
  return lower.applyPurges(events, flushUpTo);
}
