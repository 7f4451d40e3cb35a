/**
 * What the PageStore tells the Memento routes, across RPC and through the
 * tiers (as small JSON answers). Mementos are ordered by time, then by
 * append order for revisions stamped the same second: the order of the
 * store's `revs_by_time (ts, seq)` index.
 */

/** A memento: a revision id and its timestamp (epoch seconds). */
export interface MementoRef {
  id: number;
  ts: number;
}

/**
 * One memento and where it sits in its page's time line. Its neighbours and
 * ends are visible mementos only: navigation never leads to a suppressed one
 * (a 410). `self` is suppressed only when asked for by id; then `first` and
 * `last` are null if no revision of the page is visible.
 */
export interface MementoInfo {
  title: string;
  self: MementoRef;
  suppressed: boolean;
  first: MementoRef | null;
  last: MementoRef | null;
  prev: MementoRef | null;
  next: MementoRef | null;
}

/**
 * A page's whole time line in one answer, so a write changes one answer
 * rather than every revision's place in time: each memento as `[id, ts,
 * suppressed]` (suppressed 1 or 0), in time order. `mementos` is null when
 * the page has more revisions than `LIMITS.memento.indexMaxRevisions`: then
 * each revision's place is asked for on its own (`MementoInfo` by id).
 */
export interface MementoIndex {
  title: string;
  mementos: Array<[id: number, ts: number, suppressed: 0 | 1]> | null;
}

/** Which timemap page: the oldest (no cursor), the one after a memento, or the one before it. */
export type TimemapCursor = { after?: number; before?: number };

/** One page of a page's TimeMap, oldest first. */
export interface TimemapPage {
  title: string;
  mementos: MementoRef[];
  first: MementoRef;
  last: MementoRef;
  /** Whether older / newer mementos exist beyond this page. */
  hasOlder: boolean;
  hasNewer: boolean;
}
