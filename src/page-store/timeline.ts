/**
 * A page's time line for people (src/page/timeline.ts): the years it has
 * edits in, each with its first visible edit, for the history's links by
 * year; its latest visible revision, for `/view/{title}`; and one revision's
 * place in the history, for the viewer's previous and next edit. Nothing
 * here loads the history: each step is one walk of an index with `LIMIT 1`
 * (the `seq` primary key for neighbours, `revs_by_id` for the revision,
 * `revs_by_time (ts, seq)` for years), O(log n) however long the history,
 * plus the suppressed rows a walk steps over (as in src/page-store/mementos.ts:
 * suppression is rare, and an index of visible rows would cost every page).
 * Years are at most `LIMITS.browse.timelineYears` walks.
 */
import { LIMITS } from "../limits.ts";
import type { PageTimeline, RevisionPlace, TimelineMark, TimelineYear } from "../page/timeline.ts";
import type { StoreProblem } from "../page/types.ts";
import { isRefused, publicPage, refusal, toListed, type PageDb, type RevRow } from "./rows.ts";

type Row = RevRow & { eff_ts: number | null };

const COLUMNS = "seq, rev_id, ts, u, h, suppressed, hidden, eff_ts";
const iso = (ts: number) => new Date(ts * 1000).toISOString().replace(".000Z", "Z");
const mark = (r: Row): TimelineMark => ({ id: r.rev_id, timestamp: iso(r.ts) });

/** The first of this page's revisions `more` finds (`AND …`, `ORDER BY …`, after `WHERE pg = ?`). */
function one(db: PageDb, more: string, ...args: number[]): Row | undefined {
  return db.sql.exec<Row>(`SELECT ${COLUMNS} FROM revs WHERE pg = ? ${more} LIMIT 1`, db.pg, ...args).toArray()[0];
}

/** Epoch seconds of 1 January of `year`, 00:00 UTC (Date.UTC would read years 0–99 as 1900–1999). */
function yearStart(year: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, 0, 1);
  return d.getTime() / 1000;
}

/** Each year with a visible edit, oldest first, and its first visible edit by timestamp: one index walk per year. */
function years(db: PageDb, max: number): { years: TimelineYear[]; more: boolean } {
  const found: TimelineYear[] = [];
  let row = one(db, "AND suppressed = 0 ORDER BY ts, seq");
  while (row && found.length < max) {
    const year = new Date(row.ts * 1000).getUTCFullYear();
    found.push({ year, ...mark(row) });
    row = one(db, "AND ts >= ? AND suppressed = 0 ORDER BY ts, seq", yearStart(year + 1));
  }
  return { years: found, more: row !== undefined };
}

function placeOf(db: PageDb, self: Row): RevisionPlace {
  const prev = one(db, "AND seq < ? AND suppressed = 0 ORDER BY seq DESC", self.seq);
  const next = one(db, "AND seq > ? AND suppressed = 0 ORDER BY seq", self.seq);
  const effective = self.eff_ts ?? self.ts;
  return {
    revision: toListed(db.withMeta([self])[0]!),
    position: self.seq,
    effectiveTimestamp: iso(effective),
    // `/web/` at T answers the last visible revision by seq with eff_ts <= T; eff_ts never decreases along seq.
    webAnswersIt: self.suppressed === 0 && (next === undefined || (next.eff_ts ?? next.ts) > effective),
    prev: prev ? mark(prev) : null,
    next: next ? mark(next) : null,
  };
}

/** The page's time line, and revision `id`'s place in it when asked. */
export function pageTimeline(db: PageDb, id?: number): (PageTimeline & { version: number }) | StoreProblem {
  const page = publicPage(db);
  if (isRefused(page)) return page;
  let place: RevisionPlace | undefined;
  if (id !== undefined) {
    const self = one(db, "AND rev_id = ?", id);
    if (!self) return refusal(404, "revision_not_found", `${page.title} has no revision ${id}`);
    place = placeOf(db, self);
  }
  const latest = one(db, "AND suppressed = 0 ORDER BY seq DESC");
  const { years: list, more } = years(db, LIMITS.browse.timelineYears);
  return {
    title: page.title,
    total: page.latest_seq ?? 0,
    latest: latest ? mark(latest) : null,
    years: list,
    moreYears: more,
    ...(place ? { place } : {}),
    version: db.version(),
  };
}
