/**
 * The shapes of a MediaWiki export's questions to a PageStore and its
 * answers (src/page-store/export.ts answers them; src/origin/export.ts asks
 * and writes the XML): shared types, so the origin does not import the
 * store's code.
 */
import type { ListedRevision, RevisionMeta, StoreProblem } from "./types.ts";
import type { ContentLocation } from "../storage/revision-reader.ts";

export type ExportDirection = "asc" | "desc";

/** Where a selection starts: after or before a revision (by seq, exclusive), or at a time (epoch seconds). */
export type ExportStart = { after: number } | { before: number } | { time: number };

/**
 * One revision of an export: with its content's location, or, suppressed and not to be read, without;
 * in a backup, a revision whose text the archive never held (`textMissing`) has none either.
 */
export type ExportedRevision =
  | { revision: RevisionMeta; location: ContentLocation | null }
  | { revision: Extract<ListedRevision, { suppressed: true }>; location: null };

export interface ExportPlan {
  title: string;
  /** Only in a backup: the page is deleted as MediaWiki deletes (restorable), so the public sees 410. */
  deleted?: true;
  /** The page's id on its wiki, if a write gave it; null otherwise (the export then writes a stable id of its own). */
  wikiPageId: number | null;
  /** The first and last seq of the selection, in its direction; null when it is empty. */
  range: { from: number; to: number } | null;
  count: number;
  /** Bytes of the contents the answer will carry. */
  textBytes: number;
  /** The cursor the next answer starts from, if the history goes on past the selection. */
  next: string | null;
}

export type ExportQuery =
  | {
      kind: "plan";
      start: ExportStart | null;
      dir: ExportDirection;
      limit: number;
      maxBytes: number;
      withSuppressed: boolean;
    }
  | {
      kind: "batch";
      /** Inclusive seqs, in the export's direction (from > to when descending). */
      from: number;
      to: number;
      limit: number;
      withSuppressed: boolean;
    };

/** A batch, and the seq of its last revision, where the next batch starts from. */
export interface ExportBatch {
  revisions: ExportedRevision[];
  lastSeq: number | null;
}

export type ExportAnswer = ExportPlan | ExportBatch | StoreProblem;
