/**
 * When a revision exists, for time travel. Real histories hold children
 * dated before their parents (imported clocks, rebased commits: three in
 * the w3c-webdriver corpus history, hours to days early), and MediaWiki
 * imports them, so the archive does too. Its own timestamp stays what the
 * history, the TimeMaps and exports show; but `?at=`, the TimeGate and
 * `/web/` must not answer a revision for a time before the revisions it
 * was made on existed. So a revision exists only from its effective time:
 * the latest timestamp among itself and every revision before it in the
 * page's chain (a running maximum over `seq`). Effective times never
 * decrease along `seq`, so the revision current at T is the last by `seq`
 * whose effective time is at or before T: one walk of the
 * `revs_by_effective (eff_ts)` index, whose entries end in the rowid, `seq`
 * (`visibleAt` in src/page-store/mementos.ts, for `?at=` and the TimeGate).
 * Commits store each new revision's effective time
 * (src/page-store/commit.ts).
 *
 * @example
 * effectiveTimes(null, [100, 300, 200]); // [100, 300, 300]: at 250, the revision dated 100 is current
 */
import type { RevisionWarning, StoreRevision } from "../page/types.ts";
import type { PageDb } from "./rows.ts";

/** Unix seconds as the archive writes a timestamp (toMeta's form). */
const isoSeconds = (ts: number): string => new Date(ts * 1000).toISOString().replace(".000Z", "Z");

/**
 * Effective times of revisions appended, in order, after one whose effective time is `previous` (null: the page's
 * first).
 */
export function effectiveTimes(previous: number | null, timestamps: readonly number[]): number[] {
  let running = previous ?? -Infinity;
  return timestamps.map((ts) => (running = Math.max(running, ts)));
}

/** The effective time of revision `seq`, or null if there is none. */
export function effectiveTimeOf(db: PageDb, seq: number | null): number | null {
  if (seq === null || !db.claimed) return null;
  return (
    db.sql.exec<{ eff_ts: number | null }>("SELECT eff_ts FROM revs WHERE pg = ? AND seq = ?", db.pg, seq).toArray()[0]
      ?.eff_ts ?? null
  );
}

/**
 * A warning for each new revision dated before its parent: `parent` is the
 * revision the first of `children` extends (null on a new page), and each
 * later child extends the one before it. `effectiveTs` is the child's
 * effective time, from which time travel answers it.
 */
export function childrenBeforeParents(
  parent: { id: number; timestamp: string; ts: number } | null,
  children: ReadonlyArray<{ rev: StoreRevision; ts: number; effectiveTs: number }>,
): RevisionWarning[] {
  const warnings: RevisionWarning[] = [];
  let before = parent;
  for (const { rev, ts, effectiveTs } of children) {
    if (before && ts < before.ts) {
      const effective = isoSeconds(effectiveTs);
      warnings.push({
        code: "dated_before_parent",
        revisionId: rev.id,
        timestamp: rev.timestamp,
        parentId: before.id,
        parentTimestamp: before.timestamp,
        effectiveTimestamp: effective,
        detail: `revision ${rev.id} (${rev.timestamp}) is dated before its parent ${before.id} (${before.timestamp}); it keeps its timestamp, and time travel (?at=, Accept-Datetime, /web/) answers it from ${effective}`,
      });
    }
    before = { id: rev.id, timestamp: rev.timestamp, ts };
  }
  return warnings;
}
