/** Names and stubs of the TierCache instances: a weighted pool per region, plus the upper tier's pool. */
import { rendezvousPick } from "../config/rendezvous.ts";
import { tierMembers, topologyOf, type Region } from "../config/topology.ts";

export interface TierIdentity {
  /** "regional" tiers serve one region; the "upper" tier sits in front of the origin. */
  level: "regional" | "upper";
  /** Where the instance lives (for the upper tier, the configured upper region). */
  region: Region;
  member: string;
}

export const tierName = (t: TierIdentity) => `${t.level === "upper" ? "upper" : t.region}/${t.member}`;

export function tierStub(env: Env, t: TierIdentity) {
  return env.TIER_CACHE.get(env.TIER_CACHE.idFromName(tierName(t)), { locationHint: t.region as DurableObjectLocationHint });
}

export function regionalTierFor(env: Env, region: Region, key: string): TierIdentity {
  return { level: "regional", region, member: rendezvousPick(tierMembers(topologyOf(env), region), key).id };
}

export function upperTierFor(env: Env, key: string): TierIdentity {
  const t = topologyOf(env);
  return { level: "upper", region: t.upperRegion, member: rendezvousPick(tierMembers(t, t.upperRegion), key).id };
}

/** Every tier instance a purge must reach, grouped by the region it lives in. */
export function allTiers(env: Env): TierIdentity[] {
  const t = topologyOf(env);
  const out: TierIdentity[] = [];
  for (const region of Object.keys(t.regions) as Region[]) for (const m of tierMembers(t, region)) out.push({ level: "regional", region, member: m.id });
  for (const m of tierMembers(t, t.upperRegion)) out.push({ level: "upper", region: t.upperRegion, member: m.id });
  return out;
}
