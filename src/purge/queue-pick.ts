/** Which PurgeQueue of a region's pool takes a page's purges: rendezvous on the page, so one page's purges stay in order. */
import { rendezvousPick } from "../config/rendezvous.ts";
import { topologyOf, type Region } from "../config/topology.ts";

export function purgeQueueNames(region: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${region}-q${i}`);
}

export function purgeQueueStub(env: Env, name: string, region?: string) {
  return env.PURGE_QUEUE.get(env.PURGE_QUEUE.idFromName(name), region ? { locationHint: region as DurableObjectLocationHint } : undefined);
}

export function purgeQueueFor(env: Env, region: string, page: string) {
  const topology = topologyOf(env);
  const home = (topology.regions[region as Region] ? region : topology.upperRegion) as Region;
  const names = purgeQueueNames(home, topology.queuesPerRegion).map((id) => ({ id, weight: 1 }));
  const name = rendezvousPick(names, page).id;
  return { stub: purgeQueueStub(env, name, home), self: { name, region: home } };
}
