/**
 * The deployment's wiki follower state (the WikiFollower Durable Object is a
 * shell over this): its cursor in the wiki's recent changes, the lease that
 * lets one Cron Trigger invocation at a time run a pass, and the last pass's
 * outcome for operators. One object per followed wiki (named by its api.php
 * URL), so a cursor can never be used on another wiki.
 *
 * Schema (numbered migrations, run by src/storage/migrations.ts):
 *
 *   cursor(one = 1 PK, wiki, timestamp, rcid)     where the follower has got to
 *   lease(one = 1 PK, holder, until_ms)           the pass running now, until when
 *   last_pass(one = 1 PK, started_ms, finished_ms, outcome JSON)
 *
 * @example
 * const store = new FollowerStore(ctx.storage);
 * if (store.acquire("pass-1", Date.now(), 60_000)) { … store.save(cursor) … store.release("pass-1") }
 */
import { migrate, type Migration } from "../storage/migrations.ts";
import type { FollowCursor } from "./follower.ts";

/** What an operator sees of the last pass: its counts, or why it failed. */
export interface PassRecord {
  startedMs: number;
  finishedMs: number;
  outcome:
    | { ok: true; changes: number; pages: number; revisions: number; skipped: number; retries: number; more: boolean }
    | { ok: false; error: string };
}

/** Each entry runs once, in order; never edit one that has shipped, add the next. */
const MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE cursor (one INTEGER PRIMARY KEY CHECK (one = 1), wiki TEXT NOT NULL, timestamp TEXT NOT NULL, rcid INTEGER NOT NULL);
   CREATE TABLE lease (one INTEGER PRIMARY KEY CHECK (one = 1), holder TEXT NOT NULL, until_ms INTEGER NOT NULL);
   CREATE TABLE last_pass (one INTEGER PRIMARY KEY CHECK (one = 1), started_ms INTEGER NOT NULL, finished_ms INTEGER NOT NULL, outcome TEXT NOT NULL);`,
];

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
