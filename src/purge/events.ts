/**
 * Purge events: what the tiers are asked to forget. A write's purge comes
 * from its PageStore, which writes it into its outbox in the same
 * transaction as the write, so a committed write can never lose its purge.
 * An operator's purge comes from the purge API (src/purge/ingest.ts) and
 * touches no PageStore. A PurgeQueue numbers and delivers both.
 */
import { ALL } from "../tiers/purge-marks.ts";

/** What an operator purge selects, with its canonical cache keys computed once at ingest. */
export type SelectorScope =
  /** Canonical cache keys (from `files`). */
  | { kind: "keys"; keys: string[] }
  | { kind: "tags"; tags: string[] }
  /** Canonical key prefixes (from `prefixes`), matched at path segments. */
  | { kind: "prefixes"; prefixes: string[] }
  /** Hosts this archive serves: everything it holds, and, at Cloudflare, only those hosts. */
  | { kind: "hosts"; hosts: string[] };

export type PurgeScope =
  /** The page's mutable keys: latest, history pages, time resolution. */
  | { kind: "mutable" }
  /** Mutable keys plus specific revisions (a suppression). */
  | { kind: "revisions"; revisions: number[] }
  /** Every key of the page (a deletion). */
  | { kind: "page" }
  /** Everything a tier holds (an operator's purge_everything, or a tier too far behind the retained log). */
  | { kind: "everything" }
  | SelectorScope;

/** The purge kinds of the purge API, as Cloudflare names them. */
export type OperatorKind = "files" | "tags" | "prefixes" | "hosts" | "everything";

export interface PurgeRequest {
  /** Page key (underscore title) for a write's purge; null for an operator's. */
  page: string | null;
  scope: PurgeScope;
  /** Page version after the write; tiers refuse to refill from anything older. 0 for an operator's purge. */
  version: number;
  /** Region of the writer: the purge goes to a queue in that region's pool. */
  region: string;
  /**
   * An operator purge's mark: what was produced before `at` is gone (or,
   * soft, stale). Set at ingest, so the receiving colo and every tier
   * apply the same time.
   */
  mark?: { at: number; soft: boolean };
  /** Who asked, for the audit log; absent for a write's purge. */
  operator?: { by: string; kind: OperatorKind };
}

export interface PurgeEvent extends PurgeRequest {
  /** Position in the owning queue's log, from 1. */
  seq: number;
  /** `<queue>:<seq>`, what GET /api/purges/{id} takes. */
  id: string;
  queue: string;
  createdAt: number;
}

/** The mark selectors an operator purge raises; none for a write's purge (those raise page floors). */
export function selectorsOfScope(scope: PurgeScope): string[] {
  switch (scope.kind) {
    case "keys":
      return scope.keys.map((k) => `key:${k}`);
    case "tags":
      return scope.tags.map((t) => `tag:${t}`);
    case "prefixes":
      return scope.prefixes.map((p) => `prefix:${p}`);
    case "hosts":
    case "everything":
      return [ALL];
    default:
      return [];
  }
}
