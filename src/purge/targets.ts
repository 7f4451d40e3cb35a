/**
 * Everything a purge must reach. Regional and upper tiers are TierCache
 * objects. Lower tiers are the Cache API of each data centre: in development
 * one target per simulated colo, applied directly; in production one
 * target, Cloudflare's purge API, which reaches every colo.
 */
import { allTiers, tierName, type TierIdentity } from "../bindings.ts";
import { settingsOf } from "../config/settings.ts";
import { topologyOf, type Region } from "../config/topology.ts";

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
