/**
 * PageDirectory: which page titles exist, sharded by title. The origin asks
 * it before touching a PageStore, so a read of a title nobody wrote answers
 * 404 without creating that page's Durable Object and its database: anyone
 * can send reads, and reads must not grow storage. A shard that was never
 * written to answers from an empty database and creates no table.
 *
 * @example
 * await directoryFor(env, "BIP_0340").add("BIP_0340");
 * await directoryFor(env, "BIP_0340").has("BIP_0340"); // true
 */
import { DurableObject } from "cloudflare:workers";

const SCHEMA = "CREATE TABLE IF NOT EXISTS pages (key TEXT PRIMARY KEY) WITHOUT ROWID";

export class PageDirectory extends DurableObject<Env> {
  #ready = false;

  /** Whether the table exists; asked of SQLite until it does, never created by a read. */
  #exists(): boolean {
    if (!this.#ready) this.#ready = this.ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'pages'").toArray().length > 0;
    return this.#ready;
  }

  has(key: string): boolean {
    if (!this.#exists()) return false;
    return this.ctx.storage.sql.exec("SELECT 1 FROM pages WHERE key = ?", key).toArray().length > 0;
  }

  add(key: string): void {
    if (!this.#exists()) {
      this.ctx.storage.sql.exec(SCHEMA);
      this.#ready = true;
    }
    this.ctx.storage.sql.exec("INSERT OR IGNORE INTO pages (key) VALUES (?)", key);
  }
}
