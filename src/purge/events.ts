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

/** What a write's purge names: keys of one page. */
export type PageScope =
  /** The page's mutable keys: latest, history pages, time resolution. */
  | { kind: "mutable" }
  /** Mutable keys plus specific revisions (a suppression). */
  | { kind: "revisions"; revisions: number[] }
  /** Every key of the page (a deletion). */
  | { kind: "page" };

export type PurgeScope =
  | PageScope
  /** Everything a tier holds (an operator's purge_everything, or a tier too far behind the retained log). */
  | { kind: "everything" }
  | SelectorScope;

/** The purge kinds of the purge API, as Cloudflare names them. */
export type OperatorKind = "files" | "tags" | "prefixes" | "hosts" | "everything";

/** A write's purge (from a PageStore's outbox): it raises the page's floors to `version`, and carries no mark. */
export interface WritePurgeRequest {
  /** Page key (underscore title). */
  page: string;
  scope: PageScope;
  /** Page version after the write; tiers refuse to refill from anything older. */
  version: number;
  /** Region of the writer: the purge goes to a queue in that region's pool. */
  region: string;
  mark?: undefined;
  operator?: undefined;
}

/** An operator's purge (from the purge API): it raises marks, never a page's floors. */
export interface OperatorPurgeRequest {
  page: null;
  scope: SelectorScope | { kind: "everything" };
  version: 0;
  /** Region of the colo that received it: the purge goes to a queue in that region's pool. */
  region: string;
  /**
   * What was produced before `at` is gone (or, soft, stale). Set at ingest,
   * so the receiving colo and every tier apply the same time.
   */
  mark: { at: number; soft: boolean };
  /** Who asked, for the audit log. */
  operator: { by: string; kind: OperatorKind };
}

export type PurgeRequest = WritePurgeRequest | OperatorPurgeRequest;

export type PurgeEvent = PurgeRequest & {
  /** Position in the owning queue's log, from 1. */
  seq: number;
  /** `<queue>:<seq>`, what GET /api/purges/{id} takes. */
  id: string;
  queue: string;
  createdAt: number;
};

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
