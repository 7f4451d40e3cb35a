/**
 * The PurgeAudit Durable Object's storage (the class is a shell over this):
 * the operators' purge log, newest first, paginated by a cursor. A purge can
 * complete before the ingest that enqueued it has recorded it here (a fast
 * fanout beats the audit RPC), so a completion for an unknown id waits in
 * `early_completions` until its record arrives. Listing an empty log creates
 * nothing.
 *
 *   audit              n (AUTOINCREMENT, the cursor), id (UNIQUE), by, kind, soft,
 *                      items (JSON), keys, dropped, created_at, completed_at
 *   early_completions  id → at, for records not yet made; dropped after a day
 *
 * @example
 * const store = new AuditStore(ctx.storage);
 * store.record({
 *   id: "weur-q0:7", by: "ops", kind: "tag", soft: false, items: ["t1"], keys: 1, dropped: 0, createdAt: Date.now(),
 * });
 * store.list(null, 50); // { entries: [...], next: null }
 */
import { LazySqlStore, type Migration } from "../storage/migrations.ts";
import type { AuditEntry, AuditPage } from "./audit.ts";

/** Numbered (src/storage/migrations.ts): the first is the whole schema; a change appends the next. */
const MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE audit (
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
   CREATE TABLE early_completions (id TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID;`,
];

/** How long a completion waits for a record that never came (the ingest's audit call failed). */
const EARLY_COMPLETION_MS = 86_400_000;

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

export class AuditStore extends LazySqlStore {
  constructor(storage: DurableObjectStorage) {
    super(storage, MIGRATIONS, ["audit"]);
  }

  record(entry: Omit<AuditEntry, "completedAt">): void {
    if (!this.schema.exists()) this.schema.create();
    this.sql.exec(
      "INSERT OR IGNORE INTO audit (id, by, kind, soft, items, keys, dropped, created_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, (SELECT at FROM early_completions WHERE id = ?))",
      entry.id,
      entry.by,
      entry.kind,
      entry.soft ? 1 : 0,
      JSON.stringify(entry.items),
      entry.keys,
      entry.dropped,
      entry.createdAt,
      entry.id,
    );
    this.sql.exec(
      "DELETE FROM early_completions WHERE id = ? OR at < ?",
      entry.id,
      entry.createdAt - EARLY_COMPLETION_MS,
    );
  }

  completed(done: Array<{ id: string; at: number }>): void {
    if (!this.schema.exists()) this.schema.create();
    for (const { id, at } of done) {
      const known =
        this.sql
          .exec("UPDATE audit SET completed_at = coalesce(completed_at, ?) WHERE id = ? RETURNING 1", at, id)
          .toArray().length > 0;
      if (!known) this.sql.exec("INSERT OR IGNORE INTO early_completions (id, at) VALUES (?, ?)", id, at);
    }
  }

  /** Newest first; `before` is the cursor a previous page returned. */
  list(before: number | null, limit: number): AuditPage {
    if (!this.schema.exists()) return { entries: [], next: null };
    const rows = this.sql
      .exec<Row>(
        "SELECT * FROM audit WHERE n < ? ORDER BY n DESC LIMIT ?",
        before ?? Number.MAX_SAFE_INTEGER,
        limit + 1,
      )
      .toArray();
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
