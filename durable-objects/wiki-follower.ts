/**
 * WikiFollower: the deployment's follower of one MediaWiki (named by its
 * api.php URL): its cursor, the lease that keeps Cron Trigger passes from
 * overlapping, and the last pass's outcome. A shell over
 * src/follow/follower-store.ts; the pass itself runs in the Worker
 * (src/follow/cron-pass.ts).
 */
import { DurableObject } from "cloudflare:workers";
import type { FollowCursor } from "../src/follow/follower.ts";
import { FollowerStore, type PassRecord } from "../src/follow/follower-store.ts";

export class WikiFollower extends DurableObject<Env> {
  readonly #store: FollowerStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new FollowerStore(ctx.storage);
  }

  cursor(): FollowCursor | null {
    return this.#store.cursor();
  }

  save(holder: string, cursor: FollowCursor): boolean {
    return this.#store.save(holder, cursor, Date.now());
  }

  acquire(holder: string, ms: number): boolean {
    return this.#store.acquire(holder, Date.now(), ms);
  }

  release(holder: string): void {
    this.#store.release(holder);
  }

  recordPass(record: PassRecord): void {
    this.#store.recordPass(record);
  }

  status(): {
    cursor: FollowCursor | null;
    running: { holder: string; untilMs: number } | null;
    lastPass: PassRecord | null;
  } {
    return { cursor: this.#store.cursor(), running: this.#store.holder(Date.now()), lastPass: this.#store.lastPass() };
  }
}
