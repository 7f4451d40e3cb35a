/**
 * Memento navigation from the PageStore's SQLite: a revision's neighbours
 * in time (first, previous, next, last), the revision current at a time,
 * and TimeMap pages. Every query walks the `revs_by_time (ts, seq)`
 * index (row-value comparisons, `LIMIT`): O(log n) however long the history,
 * never a scan or a count.
 */
import type { StoreProblem } from "../page/types.ts";
import type { MementoInfo, MementoRef, TimemapCursor, TimemapPage } from "../memento/types.ts";
import { pageNotFound, refusal, type PageDb, type PageRow } from "./rows.ts";

type Row = { rev_id: number; ts: number; seq: number; [key: string]: SqlStorageValue };

const COLUMNS = "rev_id, ts, seq";
const ref = (r: Row): MementoRef => ({ id: r.rev_id, ts: r.ts });

function one(db: PageDb, sql: string, ...args: number[]): Row | undefined {
  return db.sql.exec<Row>(sql, ...args).toArray()[0];
}

const firstRow = (db: PageDb) => one(db, `SELECT ${COLUMNS} FROM revs ORDER BY ts, seq LIMIT 1`);
const lastRow = (db: PageDb) => one(db, `SELECT ${COLUMNS} FROM revs ORDER BY ts DESC, seq DESC LIMIT 1`);
const before = (db: PageDb, r: Row) => one(db, `SELECT ${COLUMNS} FROM revs WHERE (ts, seq) < (?, ?) ORDER BY ts DESC, seq DESC LIMIT 1`, r.ts, r.seq);
const after = (db: PageDb, r: Row) => one(db, `SELECT ${COLUMNS} FROM revs WHERE (ts, seq) > (?, ?) ORDER BY ts, seq LIMIT 1`, r.ts, r.seq);

function livePage(db: PageDb): PageRow | StoreProblem {
  const page = db.page();
  if (!page) return pageNotFound();
  if (page.deleted_at != null) return refusal(410, "page_deleted", `the page ${page.title} was deleted`);
  return page;
}

const isProblem = (p: PageRow | StoreProblem): p is StoreProblem => "ok" in p && p.ok === false;

/**
 * A memento in its time line: a revision by id, or the one current at a
 * time (the latest at or before it; before the first revision, the first:
 * see workers/edge/memento-routes.ts for why).
 */
export function mementoInfo(db: PageDb, which: { id: number } | { at: number }): (MementoInfo & { version: number }) | StoreProblem {
  const page = livePage(db);
  if (isProblem(page)) return page;
  const first = firstRow(db);
  if (!first) return refusal(404, "revision_not_found", `${page.title} has no revision`);
  const self =
    "id" in which
      ? one(db, `SELECT ${COLUMNS} FROM revs WHERE rev_id = ?`, which.id)
      : (one(db, `SELECT ${COLUMNS} FROM revs WHERE eff_ts <= ? ORDER BY eff_ts DESC, seq DESC LIMIT 1`, which.at) ?? first);
  if (!self) return refusal(404, "revision_not_found", `${page.title} has no revision ${"id" in which ? which.id : ""}`.trim());
  const prev = before(db, self);
  const next = after(db, self);
  // The last is only looked up when this one is not it.
  const last = next ? lastRow(db)! : self;
  return { title: page.title, self: ref(self), first: ref(first), last: ref(last), prev: prev ? ref(prev) : null, next: next ? ref(next) : null, version: db.version() };
}

/** A TimeMap page of up to `limit` mementos, oldest first: the oldest ones, or those just after or just before a memento. */
export function timemapPage(db: PageDb, cursor: TimemapCursor, limit: number): (TimemapPage & { version: number }) | StoreProblem {
  const page = livePage(db);
  if (isProblem(page)) return page;
  const first = firstRow(db);
  if (!first) return refusal(404, "revision_not_found", `${page.title} has no revision`);
  const anchorId = cursor.after ?? cursor.before;
  const anchor = anchorId === undefined ? undefined : one(db, `SELECT ${COLUMNS} FROM revs WHERE rev_id = ?`, anchorId);
  if (anchorId !== undefined && !anchor) return refusal(404, "revision_not_found", `${page.title} has no revision ${anchorId} to page from`);
  let rows: Row[];
  if (anchor && cursor.before !== undefined) {
    rows = db.sql.exec<Row>(`SELECT ${COLUMNS} FROM revs WHERE (ts, seq) < (?, ?) ORDER BY ts DESC, seq DESC LIMIT ?`, anchor.ts, anchor.seq, limit).toArray().reverse();
  } else if (anchor) {
    rows = db.sql.exec<Row>(`SELECT ${COLUMNS} FROM revs WHERE (ts, seq) > (?, ?) ORDER BY ts, seq LIMIT ?`, anchor.ts, anchor.seq, limit).toArray();
  } else {
    rows = db.sql.exec<Row>(`SELECT ${COLUMNS} FROM revs ORDER BY ts, seq LIMIT ?`, limit).toArray();
  }
  const oldest = rows[0];
  const newest = rows[rows.length - 1];
  return {
    title: page.title,
    mementos: rows.map(ref),
    first: ref(first),
    last: ref(lastRow(db)!),
    hasOlder: oldest !== undefined ? before(db, oldest) !== undefined : anchor !== undefined && cursor.after !== undefined,
    hasNewer: newest !== undefined ? after(db, newest) !== undefined : anchor !== undefined && cursor.before !== undefined,
    version: db.version(),
  };
}
