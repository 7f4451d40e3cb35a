/**
 * The base of a Durable Object that is a thin shell over one store module:
 * the store, opened once on the object's storage, for its methods to hand
 * their calls to. The store holds the tables and the rules; the object only
 * gives them an address.
 *
 * @example
 * export class DashboardSessions extends storeShell((storage) => new SessionStore(storage)) {
 *   revoke(sid: string): boolean {
 *     return this.store.revoke(sid);
 *   }
 * }
 */
import { DurableObject } from "cloudflare:workers";

export function storeShell<S>(open: (storage: DurableObjectStorage) => S) {
  return class extends DurableObject<Env> {
    protected readonly store: S;

    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env);
      this.store = open(ctx.storage);
    }
  };
}
