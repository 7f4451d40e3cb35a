/**
 * A memento's place in time read off its page's memento index
 * (`MementoIndex`): the same answer the PageStore gives by id
 * (src/page-store/mementos.ts `mementoInfo`), so the edge can take every
 * revision's Memento links from the one answer a write changes. First,
 * prev, next and last are visible mementos only; a suppressed one is
 * placed in time but never linked to.
 *
 * @example
 * const index: MementoIndex = { title: "Vellum", mementos: [[1, 100, 0], [2, 200, 1], [3, 300, 0]] };
 * mementoInfoIn(index, 3);
 * // { self: { id: 3, ts: 300 }, prev: { id: 1, ts: 100 }, next: null, first: …1, last: …3, … }
 */
import type { MementoIndex, MementoInfo, MementoRef } from "./types.ts";

type Entry = [id: number, ts: number, suppressed: 0 | 1];

const ref = ([id, ts]: Entry): MementoRef => ({ id, ts });

/** The nearest visible memento from `from` (exclusive) in direction `step`, if any. */
function visibleFrom(mementos: readonly Entry[], from: number, step: 1 | -1): Entry | undefined {
  for (let i = from + step; i >= 0 && i < mementos.length; i += step) if (mementos[i]![2] === 0) return mementos[i];
  return undefined;
}

/** Where a memento's neighbours are found: its nearest visible ones each way, and the visible ends. */
export interface Neighbours<M> {
  prev: M | undefined;
  next: M | undefined;
  /** Asked for only when a visible memento lies before this one (else the first is this one, or none). */
  firstVisible(): M | undefined;
  /** Likewise after it. */
  lastVisible(): M | undefined;
}

/**
 * A memento's place in time from its neighbours, as the PageStore and the
 * edge both answer it: an end is this memento itself unless a visible one
 * lies beyond it, and a suppressed memento is never an end of its own.
 */
export function placeInTime<M>(
  title: string,
  self: M,
  suppressed: boolean,
  around: Neighbours<M>,
  ref: (m: M) => MementoRef,
): MementoInfo {
  const first = around.prev ? around.firstVisible() : suppressed ? undefined : self;
  const last = around.next ? around.lastVisible() : suppressed ? undefined : self;
  return {
    title,
    self: ref(self),
    suppressed,
    first: first ? ref(first) : null,
    last: last ? ref(last) : null,
    prev: around.prev ? ref(around.prev) : null,
    next: around.next ? ref(around.next) : null,
  };
}

/** Revision `id`'s place in time, or undefined if the index does not hold it (or holds no mementos). */
export function mementoInfoIn(index: MementoIndex, id: number): MementoInfo | undefined {
  const { mementos } = index;
  if (!mementos) return undefined;
  const at = mementos.findIndex((m) => m[0] === id);
  if (at === -1) return undefined;
  const self = mementos[at]!;
  const around: Neighbours<Entry> = {
    prev: visibleFrom(mementos, at, -1),
    next: visibleFrom(mementos, at, 1),
    firstVisible: () => visibleFrom(mementos, -1, 1),
    lastVisible: () => visibleFrom(mementos, mementos.length, -1),
  };
  return placeInTime(index.title, self, self[2] !== 0, around, ref);
}
