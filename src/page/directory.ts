/**
 * Which pages exist, as the PageDirectory shards record them, with a
 * per-isolate memory of titles known to exist: a page, once written, keeps
 * its PageStore (a deleted page answers 410 from it), so a positive answer
 * never goes stale.
 */
import { directoryOf } from "../bindings.ts";
import { Lru } from "../cache/lru.ts";

const known = new Lru<string, true>(50_000);

export async function pageExists(env: Env, key: string): Promise<boolean> {
  if (known.get(key)) return true;
  const exists = await directoryOf(env, key).has(key);
  if (exists) known.set(key, true);
  return exists;
}

/** Lists a page; its PageStore does this before its first commit. */
export async function listPage(env: Env, key: string): Promise<void> {
  await directoryOf(env, key).add(key);
  known.set(key, true);
}
