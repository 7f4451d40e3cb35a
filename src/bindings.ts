/**
 * The address book: every Durable Object's name, id format and stub, in one
 * place. Nothing else builds a stub or a name, so following a read or a
 * purge from one object to the next always passes through here.
 *
 *   PageStore      one per page, named by the page key (underscore title)
 *   PageDirectory  32 shards, `shard-<n>`, by FNV-1a of the page key
 *   TierCache      `<region>/<member>` (regional) or `upper/<member>`
 *   PurgeQueue     `<region>-q<n>`, n < TOPOLOGY.queuesPerRegion
 *   Fanout         one per region, named by the region
 *
 * A purge id is `<queue>:<seq>`: the queue that logged it and its place in
 * that queue's log.
 */
import { rendezvousPick } from "./config/rendezvous.ts";
import { tierMembers, topologyOf, type Region, type Topology } from "./config/topology.ts";

const hint = (region: string) => ({ locationHint: region as DurableObjectLocationHint });

export function pageStoreOf(env: Env, pageKey: string) {
  return env.PAGE_STORE.getByName(pageKey);
}

/** Fixed: changing it would strand every title in its old shard. */
const DIRECTORY_SHARDS = 32;

export function directoryOf(env: Env, pageKey: string) {
  let h = 0x811c9dc5;
  for (let i = 0; i < pageKey.length; i++) h = Math.imul(h ^ pageKey.charCodeAt(i), 0x01000193);
  return env.PAGE_DIRECTORY.getByName(`shard-${(h >>> 0) % DIRECTORY_SHARDS}`);
}

/** Every directory shard, for the views that cover all pages (storage totals, page listings). */
export function directoryShards(env: Env) {
  return Array.from({ length: DIRECTORY_SHARDS }, (_, n) => env.PAGE_DIRECTORY.getByName(`shard-${n}`));
}

export interface TierIdentity {
  /** "regional" tiers serve one region; the "upper" tier sits in front of the origin. */
  level: "regional" | "upper";
  /** Where the instance lives (for the upper tier, the configured upper region). */
  region: Region;
  member: string;
}

export const tierName = (t: TierIdentity) => `${t.level === "upper" ? "upper" : t.region}/${t.member}`;

export function tierCacheOf(env: Env, t: TierIdentity) {
  return env.TIER_CACHE.get(env.TIER_CACHE.idFromName(tierName(t)), hint(t.region));
}

/** The region's tier member for a cache key: rendezvous on the key, so one key has one home per region. */
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

/** A purge queue as it knows itself: its name and the region whose pool it belongs to. */
export interface QueueSelf {
  name: string;
  region: Region;
}

export function purgeQueueNames(region: Region, topology: Topology): string[] {
  return Array.from({ length: topology.queuesPerRegion }, (_, i) => `${region}-q${i}`);
}

export function purgeQueueOf(env: Env, queue: QueueSelf) {
  return env.PURGE_QUEUE.get(env.PURGE_QUEUE.idFromName(queue.name), hint(queue.region));
}

/**
 * The queue of the writer's region that takes a page's purges: rendezvous on
 * the page, so one page's purges stay in one log, in order. A region outside
 * the topology (an unmapped colo) uses the upper tier's region.
 */
export function purgeQueueFor(env: Env, region: string, pageKey: string): QueueSelf {
  const topology = topologyOf(env);
  const home = (region in topology.regions ? region : topology.upperRegion) as Region;
  const name = rendezvousPick(purgeQueueNames(home, topology).map((id) => ({ id, weight: 1 })), pageKey).id;
  return { name, region: home };
}

export const purgeIdOf = (queue: string, seq: number) => `${queue}:${seq}`;

/**
 * Reads a purge id. `malformed` if it is not one this API could issue;
 * `unknown` if its queue is not in the topology, so a made-up id never wakes
 * (and so creates) a Durable Object.
 */
export function parsePurgeId(id: string, topology: Topology): { ok: true; queue: QueueSelf; seq: number } | { ok: false; reason: "malformed" | "unknown" } {
  const m = /^([a-z]+)-q(\d{1,2}):(\d{1,15})$/.exec(id);
  if (!m) return { ok: false, reason: "malformed" };
  const region = m[1]! as Region;
  const index = Number(m[2]);
  if (!(region in topology.regions) || index >= topology.queuesPerRegion) return { ok: false, reason: "unknown" };
  return { ok: true, queue: { name: `${region}-q${index}`, region }, seq: Number(m[3]) };
}

export function fanoutOf(env: Env, region: Region) {
  return env.FANOUT.get(env.FANOUT.idFromName(region), hint(region));
}
