/**
 * Version floors: the lowest page version a tier may still serve. A write
 * raises the floor of the page's mutable keys; a removal (suppression,
 * deletion) raises it for every key, so nothing removed is served again or
 * refilled from a tier that has not caught up.
 */
export interface PageFloor {
  /** For mutable keys (latest, history, time resolution, 404s). */
  mutable: number;
  /** For every key. */
  all: number;
}

export const NO_FLOOR: PageFloor = { mutable: 0, all: 0 };

/** The lowest version an entry of this kind may have under this floor. */
export function versionFloor(floor: PageFloor, mutable: boolean): number {
  return mutable ? Math.max(floor.mutable, floor.all) : floor.all;
}

/** Both floors after raising them (never lowered). */
export function raised(floor: PageFloor, to: Partial<PageFloor>): PageFloor {
  return { mutable: Math.max(floor.mutable, to.mutable ?? 0, to.all ?? 0), all: Math.max(floor.all, to.all ?? 0) };
}
