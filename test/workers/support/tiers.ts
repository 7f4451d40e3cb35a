/** Simulated colos and purge acknowledgement, for the tier tests. */
import { env } from "cloudflare:test";
import type { PurgeQueue } from "../../../durable-objects/purge-queue.ts";
import { parsePurgeId, purgeQueueOf, tierCacheOf, type TierIdentity } from "../../../src/bindings.ts";
import { topologyOf } from "../../../src/config/topology.ts";
import type { PurgeStatusBody } from "../../../src/wire.ts";
import { request } from "./archive.ts";
import { TOKENS } from "./tokens.ts";

export function readFrom(colo: string, path: string, init: RequestInit = {}): Promise<Response> {
  return request(path, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), "x-palimpsest-colo": colo },
  });
}

export async function purgeStatus(id: string): Promise<PurgeStatusBody> {
  // The operator's token: writes' purges and operators' purges alike (an operator's needs the purge scope).
  const res = await request(`/api/purges/${id}`, { headers: { authorization: `Bearer ${TOKENS.operator}` } });
  if (res.status !== 200) throw new Error(`purge ${id}: ${res.status} ${await res.text()}`);
  return await res.json<PurgeStatusBody>();
}

export async function waitForAck(id: string, timeoutMs = 15_000): Promise<PurgeStatusBody> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const status = await purgeStatus(id);
    if (status.acknowledged) return status;
    if (Date.now() > until)
      throw new Error(
        `purge ${id} not acknowledged: ${status.tiers
          .filter((t) => !t.acknowledged)
          .map((t) => t.tier)
          .join(" ")}`,
      );
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One colo per region, from wrangler.toml's topology. */
export const ONE_COLO_PER_REGION = ["SJC", "IAD", "GRU", "LHR", "WAW", "NRT", "SYD", "JNB", "DXB"];

/** The queue that logged a purge, and the purge's sequence in it, through the address book. */
export function queueOfPurge(id: string): { queue: DurableObjectStub<PurgeQueue>; name: string; seq: number } {
  const parsed = parsePurgeId(id, topologyOf(env));
  if (!parsed.ok) throw new Error(`${id} is not a purge id of this topology`);
  return {
    queue: purgeQueueOf(env, parsed.queue),
    name: parsed.queue.name,
    seq: parsed.seq,
  };
}

export const tierCache = (t: TierIdentity) => tierCacheOf(env, t);
