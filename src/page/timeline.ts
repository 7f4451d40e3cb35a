/**
 * What the revision viewer and the history page ask a PageStore about a
 * page's time line (src/page-store/timeline.ts), across RPC and through the
 * tiers as the small mutable `timeline` answer: the years it has edits in,
 * its latest visible revision, and, for the viewer, one revision's place in
 * the history. Neighbours are visible revisions only, in history order
 * (commit order, `seq`): stepping "next" from the revision current at a time
 * reaches the one that became current after it.
 */
import type { ListedRevision } from "./types.ts";

/** A revision a link points to: its id and timestamp (ISO-8601 UTC, seconds). */
export interface TimelineMark {
  id: number;
  timestamp: string;
}

/** A year the page has a visible edit in, and its first visible edit that year (by timestamp). */
export interface TimelineYear extends TimelineMark {
  year: number;
}

/** One revision in its history: as listings show it, and its nearest visible neighbours. */
export interface RevisionPlace {
  revision: ListedRevision;
  /** Its place in commit order, 1 for the first revision. */
  position: number;
  /**
   * From when time travel answers it (src/page-store/effective-time.ts); its own timestamp unless dated before its
   * parent.
   */
  effectiveTimestamp: string;
  /**
   * Whether `/web/{effectiveTimestamp}/{title}` answers this revision (not when suppressed, or when a later one is
   * current from the same second).
   */
  webAnswersIt: boolean;
  prev: TimelineMark | null;
  next: TimelineMark | null;
}

export interface PageTimeline {
  title: string;
  /** Revisions in the history, suppressed ones included. */
  total: number;
  /** The newest visible revision, null if every one is suppressed. */
  latest: TimelineMark | null;
  /** Oldest first, at most `LIMITS.browse.timelineYears`. */
  years: TimelineYear[];
  /** Whether more years follow the last listed (the date form still reaches them). */
  moreYears: boolean;
  /** Present when the answer was asked for one revision. */
  place?: RevisionPlace;
}
