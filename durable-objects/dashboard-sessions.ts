/**
 * DashboardSessions: the dashboard's sessions, one object for the archive
 * (logins are rare; one place makes revocation immediate everywhere). A
 * shell over src/dashboard/session-store.ts.
 */
import { DurableObject } from "cloudflare:workers";
import { SessionStore, type StoredSession } from "../src/dashboard/session-store.ts";

export class DashboardSessions extends DurableObject<Env> {
  readonly #store: SessionStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new SessionStore(ctx.storage);
  }

  create(session: StoredSession): void {
    this.#store.create(session);
  }

  get(sid: string): StoredSession | null {
    return this.#store.get(sid, Date.now());
  }

  revoke(sid: string): boolean {
    return this.#store.revoke(sid);
  }

  count(): number {
    return this.#store.count(Date.now());
  }
}
