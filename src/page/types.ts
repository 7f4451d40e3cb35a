/** Shapes that cross the Worker ↔ PageStore RPC boundary (structured-clonable). */
import type { ContentModel } from "./content-model.ts";
import type { LayoutParams } from "../storage/layout.ts";
import type { ContentLocation } from "../storage/revision-reader.ts";

export interface NewRevision {
  id: number;
  parentId: number | null;
  /** ISO-8601 UTC, second precision: 2024-01-02T03:04:05Z. */
  timestamp: string;
  contributor: string;
  comment: string;
  model: ContentModel;
  format?: string;
  text: string;
  /** MediaWiki base-36 SHA-1; checked against the text when given. */
  sha1?: string | null;
  /** Cache tags the writer sets on this revision; its answers carry them, and purges by tag reach them. */
  tags?: string[];
  /**
   * What its wiki hides (MediaWiki's revision deletion): the field is kept for a backup-scope export and
   * left out of every public answer. `content` is the archive's suppression.
   */
  hidden?: HiddenFields;
  /**
   * The wiki hid its text before the archive first read it: it is stored without content (`text` must be
   * empty and `hidden.content` true), keeping its id, parent and timestamp, so its child's parent exists
   * here too. Sent again later with its text, the text fills it in.
   */
  textMissing?: boolean;
}

/** Which of a revision's fields are hidden (MediaWiki's rev_deleted bits: text 1, comment 2, user 4). */
export interface HiddenFields {
  content?: boolean;
  comment?: boolean;
  contributor?: boolean;
}

/** A revision as it crosses RPC to the PageStore: the text as UTF-8, the size it had on the wire. */
export type StoreRevision = Omit<NewRevision, "text"> & { text: Uint8Array };

export interface RevisionMeta {
  id: number;
  parentId: number | null;
  timestamp: string;
  contributor: string;
  comment: string;
  model: string;
  format: string;
  bytes: number;
  sha1: string;
  sha256: string;
  suppressed: boolean;
  /** Cache tags its writer set. */
  tags: string[];
  /** Present when the comment is hidden: public answers show it empty. */
  commentHidden?: true;
  /** Present when the contributor is hidden: public answers show it empty. */
  contributorHidden?: true;
  /**
   * Present when the archive never held the text (hidden before it was first read): suppressed, with no size or hashes.
   */
  textMissing?: true;
}

/** What is derived from a revision's content: a suppressed revision's listings leave it out. */
export type ContentFacts = "bytes" | "sha1" | "sha256";

/**
 * A revision as a listing shows it (the history, the write API's
 * suppression answer). A suppressed one keeps its id, time, contributor,
 * comment, parent, model, format and tags, and carries nothing derived from
 * its content: with its neighbours public, a size or a hash would let anyone
 * check a guess of the hidden text (MediaWiki's `sha1hidden`).
 */
export type ListedRevision =
  | (Omit<RevisionMeta, "suppressed"> & { suppressed: false })
  | (Omit<RevisionMeta, "suppressed" | ContentFacts> & { suppressed: true });

/**
 * A history entry. `previousVisibleId` is there when the revision's parent
 * is suppressed: the nearest earlier revision whose content is visible (null
 * if there is none), what "what this revision changed" compares against.
 */
export type HistoryEntry = ListedRevision & { previousVisibleId?: number | null };

export type RevisionSelector = { kind: "latest" } | { kind: "id"; id: number } | { kind: "at"; epochSeconds: number };

/** An expected failure, mapped by the route to a problem response. */
export interface StoreProblem {
  ok: false;
  status: 404 | 409 | 410 | 413 | 422;
  code: string;
  detail: string;
  latestId?: number | null;
  revisionId?: number;
  /** Which fields of a re-sent revision differ from the stored one. */
  differences?: FieldDifference[];
}

/** One field of a re-sent revision that differs from the stored one: both values, as the write API spells them. */
export interface FieldDifference {
  field: "parentId" | "timestamp" | "contributor" | "comment" | "model" | "format" | "tags";
  stored: string | number | null | string[];
  sent: string | number | null | string[];
}

export type LocateResult =
  { ok: true; title: string; revision: RevisionMeta; location: ContentLocation; version: number } | StoreProblem;

/**
 * What a write accepted but its writer should know. `dated_before_parent`: the revision's timestamp
 * is before its parent's; it is stored with it, and time travel answers it only from its effective
 * time (src/page-store/effective-time.ts).
 */
export interface RevisionWarning {
  code: "dated_before_parent";
  revisionId: number;
  timestamp: string;
  parentId: number;
  parentTimestamp: string;
  /** From when `?at=`, the TimeGate and `/web/` answer it. */
  effectiveTimestamp: string;
  detail: string;
}

export type AppendResult =
  | {
      ok: true;
      created: number[];
      existing: number[];
      /**
       * Revisions stored without their text (hidden before the archive first read it) whose text this write filled in.
       */
      filled: number[];
      latestId: number | null;
      storedBytes: number;
      version: number;
      purges: string[];
      warnings: RevisionWarning[];
    }
  | StoreProblem;

export interface HistoryPage {
  title: string;
  revisions: HistoryEntry[];
  /** Cursor for the next older page, if any. */
  older: string | null;
  /** Cursor for the next newer page, if any. */
  newer: string | null;
  total: number;
  version: number;
}

export interface PageStats {
  title: string | null;
  revisions: number;
  contents: number;
  rawBytes: number;
  blobs: number;
  blobBytes: number;
  /** The page's share of its shard's SQLite (PageDb.databaseShare in src/page-store/rows.ts). */
  metadataBytes: number;
  /** The page's layout parameters, null before its first revision. */
  layout: LayoutParams | null;
  /** The page's latest revision id (hidden or not), null when it has none: where an import resumes. */
  latestId: number | null;
}

/** What one PageStore shard stores in all: `GET /api/storage` adds them up. */
export interface ShardStorage {
  /** The shard count the deployment runs with. */
  shards: number;
  /** The shard's whole SQLite database (`ctx.storage.sql.databaseSize`). */
  databaseBytes: number;
  /** Pages that exist and are not deleted for good. */
  pages: number;
  revisions: number;
  /** Live blobs in KV, and their bytes. */
  blobs: number;
  blobBytes: number;
}
