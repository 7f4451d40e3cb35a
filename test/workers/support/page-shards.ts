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
export const shardStub = (key: string) => env.PAGE_STORE.getByName(shardOf(env, key));

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

/** The keys of page `key`'s live blobs, as its shard lists them. */
export const liveBlobKeys = (key: string): Promise<string[]> =>
  inShard(key, (sql, db) =>
    sql
      .exec<{ key: string }>("SELECT key FROM blobs WHERE pg = ? AND state = 'live'", db.pg)
      .toArray()
      .map((r) => r.key),
  );

/** What `run` returned, and the rows its queries read. */
export interface CountedRows<T> {
  read: number;
  result: T;
}

/**
 * Runs `fn` inside page `key`'s shard with the page's view, whose queries are
 * the real ones, counted through the cursors they open: `measure(run)` gives
 * what `run` returned and the rows its queries read.
 */
export function withCountedRows<R>(
  key: string,
  fn: (db: PageDb, measure: <T>(run: () => T) => CountedRows<T>) => R,
): Promise<R> {
  return runInDurableObject(shardStub(key), (_instance: PageStore, state) => {
    let read = 0;
    const sql = state.storage.sql;
    const counting = {
      exec: (query: string, ...args: SqlStorageValue[]) => {
        const cursor = sql.exec(query, ...args);
        const toArray = cursor.toArray.bind(cursor);
        return Object.assign(cursor, { toArray: () => ((r) => ((read += cursor.rowsRead), r))(toArray()) });
      },
    };
    const { pg } = PageDb.open(state.storage, key, true);
    const db = new PageDb({ ...state.storage, sql: counting } as unknown as DurableObjectStorage, key, pg);
    Object.defineProperty(db, "sql", { value: counting });
    return fn(db, (run) => {
      read = 0;
      const result = run();
      return { read, result };
    });
  });
}
