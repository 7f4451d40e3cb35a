/**
 * Converts a store written in format 2 to format 3: every `revs` row gets
 * its effective time (`eff_ts`, src/page-store/effective-time.ts), the
 * running maximum of `ts` in `seq` order, and the `revs_by_effective`
 * index that `?at=` and the TimeGate walk. It runs once per store, in one
 * transaction with the `format` entry of `kv` that records it, so nothing
 * reads a half-filled column and a failure leaves format 2 to be tried
 * again. A store converted from format 1 in the same start comes through
 * here too, as does a new store (no rows: the index and the entry only).
 */
import { KV, type PageDb } from "./rows.ts";

/** The format this migration brings a store to. */
export const FORMAT_EFFECTIVE_TIME = 3;

const hasEffectiveColumn = (db: PageDb) => db.sql.exec("SELECT 1 FROM pragma_table_info('revs') WHERE name = 'eff_ts'").toArray().length > 0;

/** True if the store was before format 3 and is now in it. */
export function migrateFromV2(db: PageDb): boolean {
  if (Number(db.kvGet(KV.format) ?? 0) >= FORMAT_EFFECTIVE_TIME) return false;
  db.transaction(() => {
    // Stores created before format 3 have no column; newer ones (and format 1's conversion) have it, unfilled.
    if (!hasEffectiveColumn(db)) db.sql.exec("ALTER TABLE revs ADD COLUMN eff_ts INTEGER");
    // In seq order: each row's effective time is the latest timestamp up to and including it.
    db.sql.exec(
      `UPDATE revs SET eff_ts = running.eff_ts
       FROM (SELECT seq, max(ts) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) AS eff_ts FROM revs) AS running
       WHERE revs.seq = running.seq`,
    );
    db.sql.exec("CREATE INDEX IF NOT EXISTS revs_by_effective ON revs (eff_ts)");
    db.kvPut(KV.format, FORMAT_EFFECTIVE_TIME);
  });
  return true;
}
