/**
 * DashboardSessions: the dashboard's sessions, one object for the archive
 * (logins are rare; one place makes revocation immediate everywhere). A
 * shell over src/dashboard/session-store.ts.
 */
import { SessionStore, type StoredSession } from "../src/dashboard/session-store.ts";
import { storeShell } from "./store-shell.ts";

export class DashboardSessions extends storeShell((storage) => new SessionStore(storage)) {
  create(session: StoredSession): void {
    this.store.create(session);
  }

  get(sid: string): StoredSession | null {
    return this.store.get(sid, Date.now());
  }

  revoke(sid: string): boolean {
    return this.store.revoke(sid);
  }

  count(): number {
    return this.store.count(Date.now());
  }
}
