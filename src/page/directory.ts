/**
 * The PageDirectory shard for a title, and a per-isolate memory of titles
 * known to exist: a page, once written, keeps its PageStore (a deleted page
 * answers 410 from it), so a positive answer never goes stale.
 */
import type { PageDirectory } from "../../durable-objects/page-directory.ts";
import { Lru } from "../cache/lru.ts";

/** Fixed: changing it would strand every title in its old shard. */
const SHARDS = 32;
const known = new Lru<string, true>(50_000);

function shardOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SHARDS;
}

export function directoryFor(env: Env, key: string): DurableObjectStub<PageDirectory> {
  return env.PAGE_DIRECTORY.getByName(`shard-${shardOf(key)}`) as DurableObjectStub<PageDirectory>;
}

export async function pageExists(env: Env, key: string): Promise<boolean> {
  if (known.get(key)) return true;
  const exists = await directoryFor(env, key).has(key);
  if (exists) known.set(key, true);
  return exists;
}
