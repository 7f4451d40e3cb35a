/**
 * PurgeAudit: the operators' purge log, one object for the archive. Who
 * (the token's name), what (kind, items, soft or hard), when, how many cache
 * keys it named, what was dropped, and when every tier had acknowledged it
 * (reported by the owning queue). Newest first, paginated by a cursor.
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
    if (!this.#ready) this.#ready = this.ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'audit'").toArray().length > 0;
    return this.#ready;
  }

  record(entry: Omit<AuditEntry, "completedAt">): void {
    if (!this.#exists()) {
      this.ctx.storage.sql.exec(SCHEMA);
      this.#ready = true;
    }
    this.ctx.storage.sql.exec(
      "INSERT OR IGNORE INTO audit (id, by, kind, soft, items, keys, dropped, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      entry.id, entry.by, entry.kind, entry.soft ? 1 : 0, JSON.stringify(entry.items), entry.keys, entry.dropped, entry.createdAt,
    );
  }

  completed(done: Array<{ id: string; at: number }>): void {
    if (!this.#exists()) return;
    for (const { id, at } of done) this.ctx.storage.sql.exec("UPDATE audit SET completed_at = ? WHERE id = ? AND completed_at IS NULL", at, id);
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
