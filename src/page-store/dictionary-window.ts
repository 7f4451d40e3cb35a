/**
 * Which revision a client's `Available-Dictionary` may name for a dcb
 * answer: only one a browser reading this page would really hold. That is
 * one of the target's nearest predecessors (LIMITS.wire.dcbPredecessors,
 * the revisions a reader stepping through the history has just read) or
 * the page's latest (what most readers fetched first). Any other pair
 * answers br: otherwise each of N² (revision, dictionary) pairs, whose
 * hashes the history publishes, would cost the origin a fresh brotli
 * encode and a place in every tier.
 *
 * @example
 * dictionaryInWindow(db, "9f86d0…", 1234); // the dictionary's revision id, or null
 */
import { LIMITS } from "../limits.ts";
import { contentKey, type PageDb } from "./rows.ts";

export function dictionaryInWindow(db: PageDb, sha256Hex: string, targetId: number): number | null {
  const page = db.livePage();
  const target = db.rows("AND rev_id = ?", targetId)[0];
  if (!page || !target) return null;
  const first = target.seq - LIMITS.wire.dcbPredecessors;
  // Only rows inside the window are read, however many revisions share that content.
  const candidates = db.rows(
    "AND h = ? AND suppressed = 0 AND ((seq >= ? AND seq < ?) OR seq = ?) ORDER BY seq DESC",
    contentKey(sha256Hex),
    first,
    target.seq,
    page.latest_seq ?? -1,
  );
  for (const row of db.withMeta(candidates)) if (row.sha256 === sha256Hex) return row.rev_id;
  return null;
}
