/**
 * The takedown log's storage, in the PurgeAudit object's database beside the
 * purge audit (src/purge/audit-store.ts): one table and its page index,
 * created when the first takedown is recorded and not before (each costs a
 * 4 KiB SQLite page, and most archives never take anything down); reading
 * an empty log creates nothing. They sit outside the purge audit's numbered
 * migrations for that reason: a numbered migration runs for every audit
 * database, making the table for a log that holds only purges. A later
 * change to them is a numbered migration that looks first, since the tables
 * may not be there.
 *
 * Bounded to purge.maxTakedowns entries, the oldest dropped. Entries are
 * never deleted otherwise, so their numbers are contiguous and the bound is
 * one range delete.
 *
 *   takedowns        n (INTEGER PRIMARY KEY: the cursor), at, by, page, revision (null for a page),
 *                    hide and show (bits: content 1, comment 2, contributor 4, MediaWiki's),
 *                    deleted (null for a revision; 0 restored, 1 deleted, 2 deleted for good), reason, purges (JSON)
 *   takedowns_page   (page, n): one page's entries, newest first
 *
 * @example
 * const store = new TakedownStore(ctx.storage);
 * store.record({ at: Date.now(), by: "alice", page: "Vellum", reason: "copyright",
 *   action: { kind: "page", deleted: true }, purges: [] }); // "1"
 * store.list("Vellum", null, 50); // { entries: [...], next: null }
 */
import { LIMITS } from "../limits.ts";
import { TAKEDOWN_FIELDS, type TakedownEntry, type TakedownField, type TakedownPage } from "./takedown-log.ts";

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS takedowns (
     n INTEGER PRIMARY KEY,
     at INTEGER NOT NULL,
     by TEXT NOT NULL,
     page TEXT NOT NULL,
     revision INTEGER,
     hide INTEGER NOT NULL,
     show INTEGER NOT NULL,
     deleted INTEGER,
     reason TEXT NOT NULL,
     purges TEXT NOT NULL
   )`,
  "CREATE INDEX IF NOT EXISTS takedowns_page ON takedowns (page, n)",
];

const BIT: Record<TakedownField, number> = { content: 1, comment: 2, contributor: 4 };
const bitsOf = (fields: TakedownField[]) => fields.reduce((bits, f) => bits | BIT[f], 0);
const fieldsOf = (bits: number) => TAKEDOWN_FIELDS.filter((f) => bits & BIT[f]);

interface Row {
  n: number;
  at: number;
  by: string;
  page: string;
  revision: number | null;
  hide: number;
  show: number;
  deleted: number | null;
  reason: string;
  purges: string;
  [key: string]: SqlStorageValue;
}

export class TakedownStore {
  readonly #storage: DurableObjectStorage;
  readonly #max: number;
  #exists: boolean | undefined;

  /** `max` is purge.maxTakedowns; a test gives a small one. */
  constructor(storage: DurableObjectStorage, max: number = LIMITS.purge.maxTakedowns) {
    this.#storage = storage;
    this.#max = max;
  }

  #hasTable(): boolean {
    this.#exists ??=
      this.#storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'takedowns'").toArray()
        .length > 0;
    return this.#exists;
  }

  /** Appends an entry, dropping the oldest past the bound; returns its id. */
  record(entry: Omit<TakedownEntry, "id">): string {
    const sql = this.#storage.sql;
    return this.#storage.transactionSync(() => {
      if (!this.#hasTable()) {
        for (const statement of SCHEMA) sql.exec(statement);
        this.#exists = true;
      }
      const { action } = entry;
      const { n } = sql
        .exec<{ n: number }>(
          "INSERT INTO takedowns (at, by, page, revision, hide, show, deleted, reason, purges) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING n",
          entry.at,
          entry.by,
          entry.page,
          action.kind === "revision" ? action.revision : null,
          action.kind === "revision" ? bitsOf(action.hide) : 0,
          action.kind === "revision" ? bitsOf(action.show) : 0,
          action.kind === "page" ? (action.forGood ? 2 : action.deleted ? 1 : 0) : null,
          entry.reason,
          JSON.stringify(entry.purges),
        )
        .one();
      sql.exec("DELETE FROM takedowns WHERE n <= ?", n - this.#max);
      return String(n);
    });
  }

  /** Newest first, of one page (a canonical title) or all; `before` is the cursor a previous page returned. */
  list(page: string | null, before: number | null, limit: number): TakedownPage {
    if (!this.#hasTable()) return { entries: [], next: null };
    const bound = before ?? Number.MAX_SAFE_INTEGER;
    const rows = (
      page === null
        ? this.#storage.sql.exec<Row>("SELECT * FROM takedowns WHERE n < ? ORDER BY n DESC LIMIT ?", bound, limit + 1)
        : this.#storage.sql.exec<Row>(
            "SELECT * FROM takedowns WHERE page = ? AND n < ? ORDER BY n DESC LIMIT ?",
            page,
            bound,
            limit + 1,
          )
    ).toArray();
    const shown = rows.slice(0, limit);
    return {
      entries: shown.map((r): TakedownEntry => ({
        id: String(r.n),
        at: r.at,
        by: r.by,
        page: r.page,
        action:
          r.revision === null
            ? { kind: "page", deleted: r.deleted !== 0, ...(r.deleted === 2 ? { forGood: true as const } : {}) }
            : { kind: "revision", revision: r.revision, hide: fieldsOf(r.hide), show: fieldsOf(r.show) },
        reason: r.reason,
        purges: JSON.parse(r.purges) as string[],
      })),
      next: rows.length > limit ? String(shown.at(-1)!.n) : null,
    };
  }
}
