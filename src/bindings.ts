/**
 * The address book: every Durable Object's name, id format and stub, in one
 * place. Nothing else builds a stub or a name, so following a read or a
 * purge from one object to the next always passes through here.
 *
 *   PageStore      PAGE_STORE_SHARDS shards, `pages-<n>`, by FNV-1a of the page
 *                  key; `.page(key)` is the page's handle inside its shard
 *   PageDirectory  32 shards, `shard-<n>`, by FNV-1a of the page key
 *   TierCache      `<region>/<member>` (regional) or `upper/<member>`
 *   PurgeQueue     `<region>-q<n>`, n < TOPOLOGY.queuePool.max; the first
 *                  `size` of them (the region's QueuePool says how many) take new purges
 *   Fanout         one per region, named by the region
 *   QueuePool      one per region, named by the region: the autoscaler
 *   PurgeAudit     one, `audit`
 *   DashboardSessions  one, `sessions`
 *
 * A purge id is `<queue>:<seq>`: the queue that logged it and its place in
 * that queue's log.
 */
import { rendezvousPick } from "./lib/rendezvous.ts";
import { errorMessage } from "./lib/errors.ts";
import { settingsOf } from "./config/settings.ts";
import { tierMembers, topologyOf, type Region, type Topology } from "./config/topology.ts";
import { LIMITS } from "./limits.ts";

const hint = (region: string) => ({ locationHint: region as DurableObjectLocationHint });

/** FNV-1a (32 bits) of a page key's UTF-16 units: where a page lives, stable across releases. */
function keyHash(pageKey: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < pageKey.length; i++) h = Math.imul(h ^ pageKey.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The name of the PageStore shard that holds a page: one of PAGE_STORE_SHARDS, fixed for the deployment's life. */
export function shardOf(env: Env, pageKey: string): string {
  return `pages-${keyHash(pageKey) % settingsOf(env).pageStoreShards}`;
}

/** Every PageStore shard, for the totals that cover all pages (`GET /api/storage`). */
export function pageStoreShards(env: Env) {
  return Array.from({ length: settingsOf(env).pageStoreShards }, (_, n) => env.PAGE_STORE.getByName(`pages-${n}`));
}

/** A page's handle in its shard, as RPC types it: the methods of PageHandle (durable-objects/page-store.ts). */
export type PageStoreStub = ReturnType<ReturnType<Env["PAGE_STORE"]["getByName"]>["page"]>;

/**
 * A page's PageStore: each call asks the page's shard for the page's handle and calls the method on
 * it in the same round trip (promise pipelining), then disposes the handle, so the shard's handle
 * lives for one call. Not a thenable: awaiting it gives it back.
 */
export function pageStoreOf(env: Env, pageKey: string): PageStoreStub {
  const shard = env.PAGE_STORE.getByName(shardOf(env, pageKey));
  return new Proxy({} as PageStoreStub, {
    get(_target, method) {
      if (typeof method !== "string" || method === "then") return undefined;
      return async (...args: unknown[]) => {
        const page = shard.page(pageKey);
        try {
          return await (page as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!(...args);
        } finally {
          (page as unknown as Partial<Disposable>)[Symbol.dispose]?.();
        }
      };
    },
  });
}

/** Fixed: changing it would strand every title in its old shard. */
const DIRECTORY_SHARDS = 32;

export function directoryOf(env: Env, pageKey: string) {
  return env.PAGE_DIRECTORY.getByName(`shard-${keyHash(pageKey) % DIRECTORY_SHARDS}`);
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
  for (const region of Object.keys(t.regions) as Region[])
    for (const m of tierMembers(t, region)) out.push({ level: "regional", region, member: m.id });
  for (const m of tierMembers(t, t.upperRegion)) out.push({ level: "upper", region: t.upperRegion, member: m.id });
  return out;
}

/** A purge queue as it knows itself: its name and the region whose pool it belongs to. */
export interface QueueSelf {
  name: string;
  region: Region;
}

export const purgeQueueName = (region: Region, index: number) => `${region}-q${index}`;

/** The first `count` queues of a region's pool: the pool grows and shrinks at its end. */
export function purgeQueueNames(region: Region, count: number): QueueSelf[] {
  return Array.from({ length: count }, (_, i) => ({ name: purgeQueueName(region, i), region }));
}

export function purgeQueueOf(env: Env, queue: QueueSelf) {
  return env.PURGE_QUEUE.get(env.PURGE_QUEUE.idFromName(queue.name), hint(queue.region));
}

export function queuePoolOf(env: Env, region: Region) {
  return env.QUEUE_POOL.get(env.QUEUE_POOL.idFromName(region), hint(region));
}

/** The region a purge from `region` is queued in: an unmapped colo's purges go to the upper tier's region. */
export function purgeHome(topology: Topology, region: string): Region {
  return (region in topology.regions ? region : topology.upperRegion) as Region;
}

/**
 * Each region's pool size as this isolate last read it, for a few seconds:
 * a write must not pay an RPC to the QueuePool for every purge it queues.
 */
const poolSizes = new Map<Region, { size: Promise<number>; until: number }>();

/**
 * The queues of a region's pool that take new purges. Asking also tells the
 * QueuePool that the region has purge traffic, which keeps its autoscaler
 * sampling. If the pool cannot answer, writes go on with the size last known,
 * or the configured minimum, whose queues are in every pool.
 */
export async function activePurgeQueues(env: Env, region: Region): Promise<QueueSelf[]> {
  const now = Date.now();
  let entry = poolSizes.get(region);
  if (!entry || entry.until <= now) {
    const last = entry?.size;
    const fallback = async (err: unknown) => {
      console.warn("queue pool size unavailable; using the last known", region, errorMessage(err));
      return last ? await last.catch(() => topologyOf(env).queuePool.min) : topologyOf(env).queuePool.min;
    };
    entry = {
      size: queuePoolOf(env, region)
        .activeSize(region)
        .then((n) => n, fallback),
      until: now + LIMITS.pool.membershipCacheMs,
    };
    poolSizes.set(region, entry);
  }
  return purgeQueueNames(region, await entry.size);
}

/**
 * The queue of the writer's region that takes a page's purges: rendezvous on
 * the page over the region's active pool, so while the pool keeps its size
 * one page's purges stay in one log, in order.
 *
 * When the pool grows or shrinks, a page's next purges may go to another
 * queue than its earlier ones, and the two queues deliver independently, so a
 * tier may apply the newer purge first. That is harmless: applying a purge
 * only raises things (a page's version floor, a purge mark's time) and never
 * lowers them, so whichever queue's event a tier applies first, it ends in
 * the same state once it has applied both. Order matters only within one
 * queue's log, and a resize never reorders or drops a log: a queue leaving
 * the pool keeps delivering what it holds.
 */
export async function purgeQueueFor(env: Env, region: string, pageKey: string): Promise<QueueSelf> {
  const queues = await activePurgeQueues(env, purgeHome(topologyOf(env), region));
  const { name, region: home } = rendezvousPick(
    queues.map((q) => ({ ...q, id: q.name, weight: 1 })),
    pageKey,
  );
  return { name, region: home };
}

export const purgeIdOf = (queue: string, seq: number) => `${queue}:${seq}`;

/**
 * Reads a purge id. `malformed` if it is not one this API could issue;
 * `unknown` if its queue is not in the topology, so a made-up id never wakes
 * (and so creates) a Durable Object. Any queue below the pool's maximum is
 * known: one that left the pool still answers for the purges it logged.
 */
export function parsePurgeId(
  id: string,
  topology: Topology,
): { ok: true; queue: QueueSelf; seq: number } | { ok: false; reason: "malformed" | "unknown" } {
  const m = /^([a-z]+)-q(0|[1-9]\d?):(\d{1,15})$/.exec(id);
  if (!m) return { ok: false, reason: "malformed" };
  const region = m[1]! as Region;
  const index = Number(m[2]);
  if (!(region in topology.regions) || index >= topology.queuePool.max) return { ok: false, reason: "unknown" };
  return { ok: true, queue: { name: purgeQueueName(region, index), region }, seq: Number(m[3]) };
}

export function fanoutOf(env: Env, region: Region) {
  return env.FANOUT.get(env.FANOUT.idFromName(region), hint(region));
}

/** The purge audit log: one, near the upper tier (purges are rare; one place keeps pagination simple). */
export function purgeAuditOf(env: Env) {
  return env.PURGE_AUDIT.get(env.PURGE_AUDIT.idFromName("audit"), hint(topologyOf(env).upperRegion));
}

/** The dashboard's sessions: one, near the upper tier, so a logout is seen everywhere at once. */
export function dashboardSessionsOf(env: Env) {
  return env.DASHBOARD_SESSIONS.get(env.DASHBOARD_SESSIONS.idFromName("sessions"), hint(topologyOf(env).upperRegion));
}

/** The deployment's follower of one wiki, named by its api.php URL, near the upper tier (where its writes go first). */
export function wikiFollowerOf(env: Env, wiki: string) {
  return env.WIKI_FOLLOWER.get(env.WIKI_FOLLOWER.idFromName(wiki), hint(topologyOf(env).upperRegion));
}
