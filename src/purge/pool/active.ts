/**
 * The queue an operator purge goes to. An operator purge is not tied to one
 * page, so no order needs keeping between two of them: a tier applying purge
 * marks ends in the same state whichever it applies first. So it goes to a
 * queue of the active pool chosen by rendezvous on a random key, which is a
 * uniform pick with no extra call. Least backlog would need every queue's
 * load on each purge, or a shared view of it seconds old, and every isolate
 * reading that same stale view would send its purges to the same queue at
 * once; a uniform pick spreads them, and the autoscaler sees a queue that
 * falls behind anyway.
 */
import { activePurgeQueues, purgeHome, type QueueSelf } from "../../bindings.ts";
import { rendezvousPick } from "../../lib/rendezvous.ts";
import { topologyOf } from "../../config/topology.ts";

export async function activePurgeQueue(env: Env, region: string): Promise<QueueSelf> {
  const queues = await activePurgeQueues(env, purgeHome(topologyOf(env), region));
  const { name, region: home } = rendezvousPick(
    queues.map((q) => ({ ...q, id: q.name, weight: 1 })),
    crypto.randomUUID(),
  );
  return { name, region: home };
}
