/**
 * PurgeAudit: the operators' purge log, one object for the archive. Who
 * (the token's name), what (kind, items, soft or hard), when, how many cache
 * keys it named, what was dropped, and when every tier had acknowledged it
 * (reported by the owning queue). Newest first, paginated by a cursor.
 *
 * A purge can complete before the ingest that enqueued it has recorded it
 * here (a fast fanout beats the audit RPC), so a completion for an unknown
 * id waits in `early_completions` until its record arrives.
 */
import { DurableObject } from "cloudflare:workers";
import type { AuditEntry, AuditPage } from "../src/purge/audit.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  by TEXT NOT NULL,
  kind TEXT NOT NULL,
  soft INTEGER NOT NULL,
  items TEXT NOT NULL,
  keys INTEGER NOT NULL,
  dropped INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  completed_at INTEGER
);
CREATE TABLE IF NOT EXISTS early_completions (id TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID;
`;

interface Row {
  n: number;
  id: string;
  by: string;
  kind: string;
  soft: number;
  items: string;
  keys: number;
  dropped: number;
  created_at: number;
  completed_at: number | null;
  [key: string]: SqlStorageValue;
}

export class PurgeAudit extends DurableObject<Env> {
  #ready = false;

  /** Whether anything was ever logged; listing an empty log creates nothing. */
  #exists(): boolean {
    if (!this.#ready && this.ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'audit'").toArray().length > 0) this.#create();
    return this.#ready;
  }

  /** Also adds `early_completions` to a log created before it existed. */
  #create(): void {
    this.ctx.storage.sql.exec(SCHEMA);
    this.#ready = true;
  }

  record(entry: Omit<AuditEntry, "completedAt">): void {
    if (!this.#exists()) this.#create();
    const sql = this.ctx.storage.sql;
    sql.exec(
      "INSERT OR IGNORE INTO audit (id, by, kind, soft, items, keys, dropped, created_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, (SELECT at FROM early_completions WHERE id = ?))",
      entry.id, entry.by, entry.kind, entry.soft ? 1 : 0, JSON.stringify(entry.items), entry.keys, entry.dropped, entry.createdAt, entry.id,
    );
    // A completion whose record never came (the ingest's audit call failed) is dropped after a day.
    sql.exec("DELETE FROM early_completions WHERE id = ? OR at < ?", entry.id, entry.createdAt - 86_400_000);
  }

  completed(done: Array<{ id: string; at: number }>): void {
    if (!this.#exists()) this.#create();
    const sql = this.ctx.storage.sql;
    for (const { id, at } of done) {
      const known = sql.exec("UPDATE audit SET completed_at = coalesce(completed_at, ?) WHERE id = ? RETURNING 1", at, id).toArray().length > 0;
      if (!known) sql.exec("INSERT OR IGNORE INTO early_completions (id, at) VALUES (?, ?)", id, at);
    }
  }

  /** Newest first; `before` is the cursor a previous page returned. */
  list(before: number | null, limit: number): AuditPage {
    if (!this.#exists()) return { entries: [], next: null };
    const rows = this.ctx.storage.sql.exec<Row>("SELECT * FROM audit WHERE n < ? ORDER BY n DESC LIMIT ?", before ?? Number.MAX_SAFE_INTEGER, limit + 1).toArray();
    const page = rows.slice(0, limit);
    return {
      entries: page.map((r) => ({
        id: r.id,
        by: r.by,
        kind: r.kind,
        soft: r.soft === 1,
        items: JSON.parse(r.items) as string[],
        keys: r.keys,
        dropped: r.dropped,
        createdAt: r.created_at,
        completedAt: r.completed_at,
      })),
      next: rows.length > limit ? String(page.at(-1)!.n) : null,
    };
  }
}
