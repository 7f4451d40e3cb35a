/**
 * Reaching a page's PageStore shard from a test: its stub (by the key's
 * shard, as src/bindings.ts routes), and its rows from inside the shard
 * (`runInDurableObject`), with the page's `pg` to scope them by.
 */
import { env, runInDurableObject } from "cloudflare:test";
import type { PageStore } from "../../../durable-objects/page-store.ts";
import { shardOf } from "../../../src/bindings.ts";
import { PageDb } from "../../../src/page-store/rows.ts";

/** The shard stub holding page `key`. */
export const shardStub = (key: string) => env.PAGE_STORE.getByName(shardOf(env, key)) as DurableObjectStub<PageStore>;

/**
 * Runs `fn` inside page `key`'s shard with the shard's SQLite, the page's view and its pg
 * (-1 if the shard never held it).
 */
export function inShard<T>(
  key: string,
  fn: (sql: SqlStorage, db: PageDb, instance: PageStore, state: DurableObjectState) => T | Promise<T>,
): Promise<T> {
  return runInDurableObject(shardStub(key), (instance: PageStore, state) => {
    const written =
      state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pages'").toArray().length >
      0;
    return fn(state.storage.sql, PageDb.open(state.storage, key, written), instance, state);
  });
}
