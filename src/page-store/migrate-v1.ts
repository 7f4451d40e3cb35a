/**
 * Converts a store written in format 1 (one wide `revisions` row per
 * revision, `groups`, `tails` and `counters` tables) to format 2 (narrow
 * `revs` rows, metadata records and the `kv` table), in one transaction on
 * the object's first access, so nothing ever reads a half-converted store
 * and a failure leaves format 1 intact to be tried again. Blobs and their
 * keys are unchanged: the layout in KV is the same in both formats.
 *
 * The pages format 1 used go to SQLite's free list, which the database size
 * still counts: a converted store is no smaller on disk until its pages are
 * reused, only new stores are.
 */
import { toHex } from "../lib/digests.ts";
import type { MetaEntry } from "./meta-records.ts";
import { contentKey, KV, type PageDb } from "./rows.ts";

/** Rows converted per statement batch: bounded memory on a long history, and a whole number of metadata blocks. */
const CHUNK = 1024;

interface V1Row {
  seq: number;
  rev_id: number;
  parent_id: number | null;
  ts: number;
  contributor: string;
  comment: string;
  model: string;
  format: string;
  bytes: number;
  sha1: string;
  sha256: ArrayBuffer;
  u: number;
  suppressed: number;
  /** Absent from stores made before writers could set tags. */
  tags: string;
  [key: string]: SqlStorageValue;
}

const hasTable = (db: PageDb, name: string) => db.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;

/** True if the store was in format 1 and is now in format 2. */
export function migrateFromV1(db: PageDb): boolean {
  if (!hasTable(db, "revisions")) return false;
  db.transaction(() => {
    let rawBytes = 0;
    for (let from = 0; ; from += CHUNK) {
      const rows = db.sql.exec<V1Row>("SELECT * FROM revisions WHERE seq > ? ORDER BY seq LIMIT ?", from, CHUNK).toArray();
      if (rows.length === 0) break;
      const entries: MetaEntry[] = rows.map((r) => {
        const sha256 = toHex(new Uint8Array(r.sha256));
        db.sql.exec("INSERT INTO revs (seq, rev_id, ts, u, h, suppressed) VALUES (?, ?, ?, ?, ?, ?)", r.seq, r.rev_id, r.ts, r.u, contentKey(sha256), r.suppressed);
        // Visible contents only, as suppressRevision keeps it (src/page-store/removal.ts).
        if (!r.suppressed) rawBytes += r.bytes;
        return { parentId: r.parent_id, contributor: r.contributor, comment: r.comment, model: r.model, format: r.format, bytes: r.bytes, sha1: r.sha1, sha256, tags: r.tags ? r.tags.split(",") : [] };
      });
      if (rows[0]!.seq !== from + 1 || rows.at(-1)!.seq !== from + rows.length) {
        throw new Error(`format 1 store: revision sequence numbers ${rows[0]!.seq}..${rows.at(-1)!.seq} are not contiguous from ${from + 1}`);
      }
      db.appendMeta(from + 1, entries);
    }
    for (const g of db.sql.exec<{ k: number; blob: string }>("SELECT k, blob FROM groups").toArray()) db.kvPut(KV.group(g.k), g.blob);
    for (const t of db.sql.exec<{ u: number; blob: string }>("SELECT u, blob FROM tails").toArray()) db.kvPut(KV.tail(t.u), t.blob);
    const version = db.sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = 'version'").toArray()[0]?.value;
    if (version !== undefined) db.kvPut(KV.version, version);
    db.sql.exec("UPDATE page SET raw_bytes = ? WHERE id = 1", rawBytes);
    for (const table of ["revisions", "groups", "tails", "counters"]) db.sql.exec(`DROP TABLE IF EXISTS ${table}`);
    db.sql.exec("DROP INDEX IF EXISTS blobs_by_state");
  });
  return true;
}
