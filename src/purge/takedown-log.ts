/**
 * The takedown log, beside the purge audit in the PurgeAudit object (the
 * storage is src/purge/takedown-store.ts): every hide or show of a
 * revision's fields and every page deletion or restore, whoever made it (a
 * token's name, a dashboard login, the wiki follower), when, what, why, and
 * the purges it issued. Newest first, by a cursor, filterable by page.
 *
 * The takedowns themselves (src/writes/page-writes.ts) record here after
 * the store has changed: a record that fails leaves the takedown done and
 * says so loudly in the Worker's log, with everything the entry would have
 * held, so the trace is never silently lost.
 *
 * @example
 * await recordTakedown(env, { by: "alice", page: "Vellum", reason: "copyright complaint",
 *   action: { kind: "revision", revision: 2000120, hide: ["content"], show: [] }, purges: ["enam-q0:12"] });
 * await listTakedowns(env, { page: "Vellum" }); // { entries: [ … ], next: null }
 */
import { purgeAuditOf } from "../bindings.ts";
import { errorMessage } from "../lib/errors.ts";
import { logCursor } from "./audit.ts";
import { LIMITS } from "../limits.ts";

/** A revision's fields a takedown hides or shows, as MediaWiki's revision deletion names them (text, comment, user). */
export const TAKEDOWN_FIELDS = ["content", "comment", "contributor"] as const;
export type TakedownField = (typeof TAKEDOWN_FIELDS)[number];

export type TakedownAction =
  /** Fields of one revision hidden and shown (a field in neither was left as it was). */
  | { kind: "revision"; revision: number; hide: TakedownField[]; show: TakedownField[] }
  /**
   * The page deleted as MediaWiki deletes (restorable), or restored; `forGood`: deleted for good (`DELETE
   * /api/pages/{title}`).
   */
  | { kind: "page"; deleted: boolean; forGood?: true };

export interface TakedownEntry {
  /** The entry's place in the log, newest highest: the cursor `?before=` takes. */
  id: string;
  /** When it was recorded, in milliseconds since the epoch: right after the store took the change. */
  at: number;
  /** Who asked: a token's name, a dashboard login, or `follower of <wiki api url>`. */
  by: string;
  /** The page's title. */
  page: string;
  action: TakedownAction;
  /** Why, as the operator (or the followed wiki's log) gave it. */
  reason: string;
  /** The purges the change issued. */
  purges: string[];
}

export type NewTakedown = Omit<TakedownEntry, "id" | "at">;

export interface TakedownPage {
  entries: TakedownEntry[];
  /** Cursor for the next older page (`?before=`), if any. */
  next: string | null;
}

/** Longest `by` kept: a login or a token name is short; a follower's names its wiki's URL. */
const BY_CHARS = 300;

/** The first `max` bytes of `s` as UTF-8, never cutting a character. */
function truncateUtf8(s: string, max: number): string {
  const bytes = new TextEncoder().encode(s);
  if (bytes.byteLength <= max) return s;
  let end = max;
  // Back off continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/**
 * Records a takedown; returns its id. The routes bound a reason to page.maxReasonBytes; one from a
 * followed wiki's log may be longer, and is kept to that length here.
 */
export async function recordTakedown(env: Env, entry: NewTakedown): Promise<string> {
  return purgeAuditOf(env).recordTakedown({
    ...entry,
    by: entry.by.slice(0, BY_CHARS),
    reason: truncateUtf8(entry.reason, LIMITS.page.maxReasonBytes),
    at: Date.now(),
  });
}

/**
 * Records a takedown that has already happened: never throws, since the change stands whatever the log
 * does. A failure is logged as an error naming who, what and why, so the trace survives in the Worker's log.
 */
export async function traceTakedown(env: Env, entry: NewTakedown): Promise<string | null> {
  try {
    return await recordTakedown(env, entry);
  } catch (err) {
    console.error("TAKEDOWN NOT RECORDED in the audit log (the change itself was made)", {
      ...entry,
      error: errorMessage(err),
    });
    return null;
  }
}

/** The hides and shows a change of a revision's fields makes: a field left out of `change` is in neither. */
export function revisionAction(
  revision: number,
  change: Partial<Record<TakedownField, boolean>>,
): Extract<TakedownAction, { kind: "revision" }> {
  return {
    kind: "revision",
    revision,
    hide: TAKEDOWN_FIELDS.filter((f) => change[f] === true),
    show: TAKEDOWN_FIELDS.filter((f) => change[f] === false),
  };
}

/** Newest first, a page at a time; `page` is a canonical title, `before` a cursor this log gave. */
export async function listTakedowns(
  env: Env,
  { page, before, limit = LIMITS.purge.takedownPageSize }: { page?: string; before?: string; limit?: number },
): Promise<TakedownPage> {
  return purgeAuditOf(env).listTakedowns(
    page ?? null,
    logCursor(before),
    Math.max(1, Math.min(limit, LIMITS.purge.takedownPageSize)),
  );
}
