/**
 * Memento navigation from the PageStore's SQLite: a revision's neighbours
 * in time (first, previous, next, last), the revision current at a time,
 * and TimeMap pages. Every query walks the `revs_by_time (ts, seq)`
 * index (row-value comparisons, `LIMIT`): O(log n) however long the history,
 * never a scan or a count.
 *
 * Navigation never leads to a suppressed revision (it answers 410): the
 * revision current at a time and a memento's first/prev/next/last are the
 * nearest visible ones. Those walks step over suppressed rows one by one,
 * so they cost O(log n + the suppressed rows in the way); suppression is an
 * operator's rare act, and an index of visible rows would cost every page
 * bytes per revision for it. TimeMaps still list every revision (its id and
 * time stay public, as the history's do).
 */
import type { StoreProblem } from "../page/types.ts";
import { placeInTime } from "../memento/navigation.ts";
import type { MementoInfo, MementoRef, TimemapCursor, TimemapPage } from "../memento/types.ts";
import { publicPage, refusal, type PageDb, type PageRow } from "./rows.ts";

type Row = { rev_id: number; ts: number; seq: number; suppressed: number; [key: string]: SqlStorageValue };

const COLUMNS = "rev_id, ts, seq, suppressed";
const ref = (r: Row): MementoRef => ({ id: r.rev_id, ts: r.ts });

/** The first row `sql` finds among this page's revisions: its first parameter is the page's pg. */
function one(db: PageDb, sql: string, ...args: number[]): Row | undefined {
  return db.sql.exec<Row>(sql, db.pg, ...args).toArray()[0];
}

const firstRow = (db: PageDb) => one(db, `SELECT ${COLUMNS} FROM revs WHERE pg = ? ORDER BY ts, seq LIMIT 1`);
const lastRow = (db: PageDb) => one(db, `SELECT ${COLUMNS} FROM revs WHERE pg = ? ORDER BY ts DESC, seq DESC LIMIT 1`);
const before = (db: PageDb, r: Row) =>
  one(
    db,
    `SELECT ${COLUMNS} FROM revs WHERE pg = ? AND (ts, seq) < (?, ?) ORDER BY ts DESC, seq DESC LIMIT 1`,
    r.ts,
    r.seq,
  );
const after = (db: PageDb, r: Row) =>
  one(db, `SELECT ${COLUMNS} FROM revs WHERE pg = ? AND (ts, seq) > (?, ?) ORDER BY ts, seq LIMIT 1`, r.ts, r.seq);

/** The same walks, over visible (not suppressed) revisions only. */
const VISIBLE = "suppressed = 0";
const firstVisible = (db: PageDb) =>
  one(db, `SELECT ${COLUMNS} FROM revs WHERE pg = ? AND ${VISIBLE} ORDER BY ts, seq LIMIT 1`);
const lastVisible = (db: PageDb) =>
  one(db, `SELECT ${COLUMNS} FROM revs WHERE pg = ? AND ${VISIBLE} ORDER BY ts DESC, seq DESC LIMIT 1`);
const visibleBefore = (db: PageDb, r: Row) =>
  one(
    db,
    `SELECT ${COLUMNS} FROM revs WHERE pg = ? AND (ts, seq) < (?, ?) AND ${VISIBLE} ORDER BY ts DESC, seq DESC LIMIT 1`,
    r.ts,
    r.seq,
  );
const visibleAfter = (db: PageDb, r: Row) =>
  one(
    db,
    `SELECT ${COLUMNS} FROM revs WHERE pg = ? AND (ts, seq) > (?, ?) AND ${VISIBLE} ORDER BY ts, seq LIMIT 1`,
    r.ts,
    r.seq,
  );

/**
 * The revision current at a time, as the TimeGate, `/web/` and `?at=` all
 * choose it: the latest visible revision that existed at the time (what a
 * reader of the wiki saw then; existence from the effective time,
 * src/page-store/effective-time.ts), else the first visible one after it
 * (before the first revision, the closest there is). RFC 7089 leaves
 * "best" to the server. Undefined if no revision is visible.
 */
export function visibleAt(db: PageDb, at: number): Row | undefined {
  return (
    one(
      db,
      `SELECT ${COLUMNS} FROM revs WHERE pg = ? AND eff_ts <= ? AND ${VISIBLE} ORDER BY eff_ts DESC, seq DESC LIMIT 1`,
      at,
    ) ?? one(db, `SELECT ${COLUMNS} FROM revs WHERE pg = ? AND ${VISIBLE} ORDER BY eff_ts, seq LIMIT 1`)
  );
}

function livePage(db: PageDb): PageRow | StoreProblem {
  return publicPage(db);
}

const isProblem = (p: PageRow | StoreProblem): p is StoreProblem => "ok" in p && p.ok === false;

/**
 * A memento in its time line: a revision by id (a suppressed one too, so
 * its 410 can still link its visible neighbours), or the one current at a
 * time ({@link visibleAt}). First, prev, next and last are visible ones.
 */
export function mementoInfo(
  db: PageDb,
  which: { id: number } | { at: number },
): (MementoInfo & { version: number }) | StoreProblem {
  const page = livePage(db);
  if (isProblem(page)) return page;
  const self =
    "id" in which
      ? one(db, `SELECT ${COLUMNS} FROM revs WHERE pg = ? AND rev_id = ?`, which.id)
      : visibleAt(db, which.at);
  if (!self)
    return refusal(
      404,
      "revision_not_found",
      "id" in which
        ? `${page.title} has no revision ${which.id}`
        : `${page.title} has no revision that is not suppressed`,
    );
  // The ends are only looked up when this one is not one of them.
  const around = {
    prev: visibleBefore(db, self),
    next: visibleAfter(db, self),
    firstVisible: () => firstVisible(db)!,
    lastVisible: () => lastVisible(db)!,
  };
  return { ...placeInTime(page.title, self, self.suppressed !== 0, around, ref), version: db.version() };
}

/**
 * A TimeMap page of up to `limit` mementos, oldest first: the oldest ones, or those just after or just before a
 * memento.
 */
export function timemapPage(
  db: PageDb,
  cursor: TimemapCursor,
  limit: number,
): (TimemapPage & { version: number }) | StoreProblem {
  const page = livePage(db);
  if (isProblem(page)) return page;
  const first = firstRow(db);
  if (!first) return refusal(404, "revision_not_found", `${page.title} has no revision`);
  const anchorId = cursor.after ?? cursor.before;
  const anchor =
    anchorId === undefined ? undefined : one(db, `SELECT ${COLUMNS} FROM revs WHERE pg = ? AND rev_id = ?`, anchorId);
  if (anchorId !== undefined && !anchor)
    return refusal(404, "revision_not_found", `${page.title} has no revision ${anchorId} to page from`);
  let rows: Row[];
  if (anchor && cursor.before !== undefined) {
    rows = db.sql
      .exec<Row>(
        `SELECT ${COLUMNS} FROM revs WHERE pg = ? AND (ts, seq) < (?, ?) ORDER BY ts DESC, seq DESC LIMIT ?`,
        db.pg,
        anchor.ts,
        anchor.seq,
        limit,
      )
      .toArray()
      .reverse();
  } else if (anchor) {
    rows = db.sql
      .exec<Row>(
        `SELECT ${COLUMNS} FROM revs WHERE pg = ? AND (ts, seq) > (?, ?) ORDER BY ts, seq LIMIT ?`,
        db.pg,
        anchor.ts,
        anchor.seq,
        limit,
      )
      .toArray();
  } else {
    rows = db.sql
      .exec<Row>(`SELECT ${COLUMNS} FROM revs WHERE pg = ? ORDER BY ts, seq LIMIT ?`, db.pg, limit)
      .toArray();
  }
  const oldest = rows[0];
  const newest = rows[rows.length - 1];
  return {
    title: page.title,
    mementos: rows.map(ref),
    first: ref(first),
    last: ref(lastRow(db)!),
    hasOlder:
      oldest !== undefined ? before(db, oldest) !== undefined : anchor !== undefined && cursor.after !== undefined,
    hasNewer:
      newest !== undefined ? after(db, newest) !== undefined : anchor !== undefined && cursor.before !== undefined,
    version: db.version(),
  };
}
