/**
 * The deployment's wiki follower state (the WikiFollower Durable Object is a
 * shell over this): its cursor in the wiki's recent changes, the lease that
 * lets one Cron Trigger invocation at a time run a pass, and the last pass's
 * outcome for operators, and the pages the archive refused, which the
 * follower skipped (for operators to see and retry). One object per followed
 * wiki (named by its api.php URL), so a cursor can never be used on another wiki.
 *
 * Schema (numbered migrations, run by src/storage/migrations.ts):
 *
 *   cursor(one = 1 PK, wiki, timestamp, rcid)     where the follower has got to
 *   lease(one = 1 PK, holder, until_ms)           the pass running now, until when
 *   last_pass(one = 1 PK, started_ms, finished_ms, outcome JSON)
 *   skipped(title PK, page_id, revision_ids JSON, code, reason, at_ms, retry_asked_ms)
 *                                                  created on the first refusal: most wikis never need it,
 *                                                  and every table is a fixed cost per object; at most
 *                                                  follow.maxSkippedPages rows, the oldest go
 *
 * @example
 * const store = new FollowerStore(ctx.storage);
 * if (store.acquire("pass-1", Date.now(), 60_000)) { … store.save(cursor) … store.release("pass-1") }
 */
import { LIMITS } from "../limits.ts";
import { migrate, type Migration } from "../storage/migrations.ts";
import { mergeSkip, type FollowCursor, type FollowReport, type SkippedPage } from "./follower.ts";

/** A skipped page as operators see it: and whether a retry is asked for (the next pass runs it). */
export type SkippedRecord = SkippedPage & { retryAskedMs: number | null };

/** What an operator sees of the last pass: its counts, or why it failed. */
export interface PassRecord {
  startedMs: number;
  finishedMs: number;
  outcome:
    | ({
        ok: true;
        /** Skipped pages an operator asked to retry, tried at the start of this pass. */
        retried: number;
      } & Omit<FollowReport, "cursor">)
    | { ok: false; error: string };
}

/** Each entry runs once, in order; never edit one that has shipped, add the next. */
const MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE cursor (one INTEGER PRIMARY KEY CHECK (one = 1), wiki TEXT NOT NULL, timestamp TEXT NOT NULL, rcid INTEGER NOT NULL);
   CREATE TABLE lease (one INTEGER PRIMARY KEY CHECK (one = 1), holder TEXT NOT NULL, until_ms INTEGER NOT NULL);
   CREATE TABLE last_pass (one INTEGER PRIMARY KEY CHECK (one = 1), started_ms INTEGER NOT NULL, finished_ms INTEGER NOT NULL, outcome TEXT NOT NULL);`,
];

/** `GET /api/follow` (src/wire.ts): the deployment's wiki follower, or `{ wiki: null }` when none is configured. */
export type FollowStatusBody =
  | { wiki: null }
  | {
      wiki: string;
      cursor: FollowCursor | null;
      running: { holder: string; untilMs: number } | null;
      lastPass: PassRecord | null;
      /** Pages the archive refused, which the follower skipped, newest first (at most follow.maxSkippedPages). */
      skipped: SkippedRecord[];
    };

export class FollowerStore {
  readonly #sql: SqlStorage;

  constructor(storage: DurableObjectStorage) {
    this.#sql = storage.sql;
    migrate(storage, MIGRATIONS);
  }

  cursor(): FollowCursor | null {
    const row = this.#sql
      .exec<{ wiki: string; timestamp: string; rcid: number }>("SELECT wiki, timestamp, rcid FROM cursor")
      .toArray()[0];
    return row ? { wiki: row.wiki, timestamp: row.timestamp, rcid: row.rcid } : null;
  }

  /** Saves the cursor; only the pass holding the lease may (a pass that lost it must not move the cursor). */
  save(holder: string, cursor: FollowCursor, now: number): boolean {
    if (!this.#holds(holder, now)) return false;
    this.#sql.exec(
      "INSERT OR REPLACE INTO cursor (one, wiki, timestamp, rcid) VALUES (1, ?, ?, ?)",
      cursor.wiki,
      cursor.timestamp,
      cursor.rcid,
    );
    return true;
  }

  /** Takes the lease until `now + ms` if nobody holds it (or it ran out); true if `holder` has it now. */
  acquire(holder: string, now: number, ms: number): boolean {
    const current = this.#lease();
    if (current && current.holder !== holder && current.until_ms > now) return false;
    this.#sql.exec("INSERT OR REPLACE INTO lease (one, holder, until_ms) VALUES (1, ?, ?)", holder, now + ms);
    return true;
  }

  release(holder: string): void {
    this.#sql.exec("DELETE FROM lease WHERE holder = ?", holder);
  }

  /** Who holds the lease now, if anyone. */
  holder(now: number): { holder: string; untilMs: number } | null {
    const lease = this.#lease();
    return lease && lease.until_ms > now ? { holder: lease.holder, untilMs: lease.until_ms } : null;
  }

  recordPass(record: PassRecord): void {
    this.#sql.exec(
      "INSERT OR REPLACE INTO last_pass (one, started_ms, finished_ms, outcome) VALUES (1, ?, ?, ?)",
      record.startedMs,
      record.finishedMs,
      JSON.stringify(record.outcome),
    );
  }

  lastPass(): PassRecord | null {
    const row = this.#sql
      .exec<{ started_ms: number; finished_ms: number; outcome: string }>(
        "SELECT started_ms, finished_ms, outcome FROM last_pass",
      )
      .toArray()[0];
    if (!row) return null;
    return {
      startedMs: row.started_ms,
      finishedMs: row.finished_ms,
      outcome: JSON.parse(row.outcome) as PassRecord["outcome"],
    };
  }

  /** Records (merging with the title's record) a page the archive refused; the oldest records go past the bound. */
  recordSkip(skip: SkippedPage): void {
    this.#createSkipped();
    const merged = mergeSkip(this.#skip(skip.title), skip);
    this.#sql.exec(
      `INSERT INTO skipped (title, page_id, revision_ids, code, reason, at_ms) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (title) DO UPDATE SET page_id = excluded.page_id, revision_ids = excluded.revision_ids,
         code = excluded.code, reason = excluded.reason, at_ms = excluded.at_ms`,
      merged.title,
      merged.pageId,
      JSON.stringify(merged.revisionIds),
      merged.code,
      merged.reason,
      merged.atMs,
    );
    this.#sql.exec(
      "DELETE FROM skipped WHERE title IN (SELECT title FROM skipped ORDER BY at_ms DESC, rowid DESC LIMIT -1 OFFSET ?)",
      LIMITS.follow.maxSkippedPages,
    );
  }

  /** The skipped pages, newest first. */
  skipped(): SkippedRecord[] {
    if (!this.#hasSkipped()) return [];
    return this.#sql
      .exec<SkipRow>(
        "SELECT title, page_id, revision_ids, code, reason, at_ms, retry_asked_ms FROM skipped ORDER BY at_ms DESC, rowid DESC",
      )
      .toArray()
      .map(fromRow);
  }

  /** After a retry: the title's new record (refused again), or none (it went through). */
  settleSkip(title: string, skip: SkippedPage | null): void {
    if (!this.#hasSkipped()) return;
    this.#sql.exec("DELETE FROM skipped WHERE title = ?", title);
    if (skip) this.recordSkip(skip);
  }

  /** Asks the next pass to retry a skipped page, or all of them; how many records that names. */
  askRetry(which: { title: string } | "all", now: number): number {
    if (!this.#hasSkipped()) return 0;
    const cursor =
      which === "all"
        ? this.#sql.exec("UPDATE skipped SET retry_asked_ms = ?", now)
        : this.#sql.exec("UPDATE skipped SET retry_asked_ms = ? WHERE title = ?", now, which.title);
    return cursor.rowsWritten;
  }

  /** The titles a retry is asked for, oldest request first. */
  retryAsked(): string[] {
    if (!this.#hasSkipped()) return [];
    return this.#sql
      .exec<{ title: string }>(
        "SELECT title FROM skipped WHERE retry_asked_ms IS NOT NULL ORDER BY retry_asked_ms, rowid",
      )
      .toArray()
      .map((r) => r.title);
  }

  #skip(title: string): SkippedPage | null {
    const row = this.#sql
      .exec<SkipRow>(
        "SELECT title, page_id, revision_ids, code, reason, at_ms, retry_asked_ms FROM skipped WHERE title = ?",
        title,
      )
      .toArray()[0];
    return row ? fromRow(row) : null;
  }

  #skippedExists: boolean | undefined;

  #hasSkipped(): boolean {
    this.#skippedExists ??=
      this.#sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'skipped'").toArray().length > 0;
    return this.#skippedExists;
  }

  #createSkipped(): void {
    if (this.#hasSkipped()) return;
    this.#sql.exec(
      `CREATE TABLE IF NOT EXISTS skipped (title TEXT PRIMARY KEY, page_id INTEGER, revision_ids TEXT NOT NULL,
         code TEXT NOT NULL, reason TEXT NOT NULL, at_ms INTEGER NOT NULL, retry_asked_ms INTEGER)`,
    );
    this.#skippedExists = true;
  }

  #holds(holder: string, now: number): boolean {
    const lease = this.#lease();
    return lease !== null && lease.holder === holder && lease.until_ms > now;
  }

  #lease(): { holder: string; until_ms: number } | null {
    return (
      this.#sql.exec<{ holder: string; until_ms: number }>("SELECT holder, until_ms FROM lease").toArray()[0] ?? null
    );
  }
}

type SkipRow = {
  title: string;
  page_id: number | null;
  revision_ids: string;
  code: string;
  reason: string;
  at_ms: number;
  retry_asked_ms: number | null;
};

function fromRow(row: SkipRow): SkippedRecord {
  return {
    title: row.title,
    pageId: row.page_id,
    revisionIds: JSON.parse(row.revision_ids) as number[],
    code: row.code,
    reason: row.reason,
    atMs: row.at_ms,
    retryAskedMs: row.retry_asked_ms,
  };
}
