/**
 * What the origin produces for a read, and what every tier keeps: the
 * answer for one cache key. Structured-clonable, so it crosses Durable
 * Object RPC as-is. The tiers build on these types; the origin knows
 * nothing of the tiers.
 */
import type { ExportDirection, ExportStart } from "../page/export-types.ts";
import type { PageRef } from "../page/page-ref.ts";

/** What a reader asked for. The cache key is derived from it (src/tiers/cache-key.ts). */
export type OriginQuery =
  | { kind: "revision"; ref: PageRef; id: number }
  | { kind: "latest"; ref: PageRef; at?: number }
  | { kind: "history"; ref: PageRef; limit: number; cursor?: string }
  /** Revision `id` coded as RFC 9842 dcb against the page's revision whose body has SHA-256 `dictionary` (hex). */
  | { kind: "delta"; ref: PageRef; id: number; dictionary: string }
  /**
   * A memento's place in time (src/origin/memento-answers.ts): by revision id, or the revision current at `at` (epoch
   * seconds).
   */
  | { kind: "memento"; ref: PageRef; which: { id: number } | { at: number } }
  /**
   * Every revision's place in time at once (src/origin/memento-answers.ts): what a revision's Memento links are read
   * from.
   */
  | { kind: "mementos"; ref: PageRef }
  /** What changed between revisions `from` and `to` of the page (src/origin/compare.ts). */
  | { kind: "compare"; ref: PageRef; from: number; to: number }
  /** The page's time line for people, and revision `id`'s place in it when given (src/origin/timeline-answer.ts). */
  | { kind: "timeline"; ref: PageRef; id?: number }
  /**
   * An anonymous MediaWiki export answer (src/origin/export.ts), `export.anonymousMaxBytes` of text at
   * most, as `GET /page/{title}/export` selects it; a `backup` token's export never comes through the tiers.
   */
  | { kind: "export"; ref: PageRef; start: ExportStart | null; dir: ExportDirection; limit: number }
  /** A TimeMap page; `base` is the origin its absolute URIs start with. */
  | {
      kind: "timemap";
      ref: PageRef;
      format: "link" | "json";
      base: string;
      cursor: { after?: number; before?: number };
    };

export interface Answer {
  status: number;
  /** HTTP headers by lower-case name. */
  headers: Record<string, string>;
  body: Uint8Array;
  /** Page version the answer reflects. */
  version: number;
  /** Page key the answer belongs to, for purges. */
  page: string;
  /** Whether a write can change it (latest, history, time resolution, 404s); a specific revision cannot. */
  mutable: boolean;
  /** When the origin produced it (ms); a flush drops everything produced before it. */
  storedAt: number;
  /** The revision a 200 for a revision read carries. */
  revisionId?: number;
  /** A 404 for a page nobody has written: tiers keep it briefly (TOPOLOGY.notFoundSeconds). */
  negative?: boolean;
  /** Cache tags (src/origin/tags.ts), also sent as `Cache-Tag`. */
  tags?: string[];
  /**
   * The body already coded for the wire, made once where the answer is made
   * and kept beside it in every tier, so a hot read never compresses: a
   * revision's br (src/origin/revision-encodings.ts), or a
   * delta answer's dcb, which is all a delta answer holds (its `body` is empty).
   */
  encoded?: { br?: Uint8Array; dcb?: Uint8Array };
}

export function etagOf(answer: Pick<Answer, "headers">): string | undefined {
  return answer.headers.etag;
}
