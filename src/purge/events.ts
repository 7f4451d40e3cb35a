/**
 * Purge events: what a write asks the tiers to forget. The PageStore writes
 * one into its outbox in the same transaction as the write, so a committed
 * write can never lose its purge; a PurgeQueue numbers and delivers it.
 */
export type PurgeScope =
  /** The page's mutable keys: latest, history pages, time resolution. */
  | { kind: "mutable" }
  /** Mutable keys plus specific revisions (a suppression). */
  | { kind: "revisions"; revisions: number[] }
  /** Every key of the page (a deletion). */
  | { kind: "page" }
  /** Everything a tier holds (a tier too far behind the retained log). */
  | { kind: "everything" };

export interface PurgeRequest {
  /** Page key (underscore title), or null for "everything". */
  page: string | null;
  scope: PurgeScope;
  /** Page version after the write; tiers refuse to refill from anything older. */
  version: number;
  /** Region of the writer: the purge goes to a queue in that region's pool. */
  region: string;
}

export interface PurgeEvent extends PurgeRequest {
  /** Position in the owning queue's log, from 1. */
  seq: number;
  /** `<queue>:<seq>`, what GET /api/purges/{id} takes. */
  id: string;
  queue: string;
  createdAt: number;
}
