/**
 * Dashboard sessions, kept on the server (the DashboardSessions Durable
 * Object is a shell over this). The cookie carries only a signed random id;
 * what the session may do is looked up here and re-derived from the
 * credential it was started with on every request, so a session ends when
 * its token is rotated, removed, loses the scope or expires, and logging
 * out revokes it for every copy of the cookie.
 *
 * Schema (numbered migrations, run by src/storage/migrations.ts):
 *
 *   sessions(sid PK, name, via, credential, scopes JSON, created_at, expires_at)
 *     credential: for a token session, the hex SHA-256 of the token it was
 *     started with; for Cloudflare Access, the identity's email.
 *
 * @example
 * const store = new SessionStore(ctx.storage);
 * store.create({
 *   sid, name: "ops", via: "session", credential, scopes: ["purge"], createdAt: now, expiresAt: now + 8 * 3600_000,
 * });
 * store.get(sid, Date.now()); // the row, or null once expired or revoked
 */
import type { Scope } from "../http/tokens.ts";
import { migrate, type Migration } from "../storage/migrations.ts";

export interface StoredSession {
  sid: string;
  name: string;
  /** How it was started: a token typed at the login form, or a Cloudflare Access assertion. */
  via: "session" | "access";
  credential: string;
  scopes: Scope[];
  createdAt: number;
  expiresAt: number;
}

/** Each entry runs once, in order; never edit one that has shipped, add the next. */
const MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE sessions (
     sid TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     via TEXT NOT NULL,
     credential TEXT NOT NULL,
     scopes TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   );
   CREATE INDEX sessions_by_expiry ON sessions (expires_at);`,
];

type Row = {
  sid: string;
  name: string;
  via: string;
  credential: string;
  scopes: string;
  created_at: number;
  expires_at: number;
};

export class SessionStore {
  readonly #sql: SqlStorage;

  constructor(storage: DurableObjectStorage) {
    this.#sql = storage.sql;
    migrate(storage, MIGRATIONS);
  }

  create(s: StoredSession): void {
    // Expired rows go as new ones come: the table holds live sessions only.
    this.#sql.exec("DELETE FROM sessions WHERE expires_at <= ?", s.createdAt);
    this.#sql.exec(
      "INSERT INTO sessions (sid, name, via, credential, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      s.sid,
      s.name,
      s.via,
      s.credential,
      JSON.stringify(s.scopes),
      s.createdAt,
      s.expiresAt,
    );
  }

  get(sid: string, now: number): StoredSession | null {
    const row = this.#sql.exec<Row>("SELECT * FROM sessions WHERE sid = ?", sid).toArray()[0];
    if (!row) return null;
    if (row.expires_at <= now) {
      this.#sql.exec("DELETE FROM sessions WHERE sid = ?", sid);
      return null;
    }
    return {
      sid: row.sid,
      name: row.name,
      via: row.via === "access" ? "access" : "session",
      credential: row.credential,
      scopes: JSON.parse(row.scopes) as Scope[],
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }

  /** Ends a session for every copy of its cookie; true if it was live. */
  revoke(sid: string): boolean {
    return this.#sql.exec("DELETE FROM sessions WHERE sid = ?", sid).rowsWritten > 0;
  }

  /** Live sessions (for the operator and the tests). */
  count(now: number): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sessions WHERE expires_at > ?", now).one().n;
  }
}
