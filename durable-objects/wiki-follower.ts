/**
 * WikiFollower: the deployment's follower of one MediaWiki (named by its
 * api.php URL): its cursor, the lease that keeps Cron Trigger passes from
 * overlapping, the last pass's outcome, and the pages the archive refused
 * (skipped, for operators to see and retry). A shell over
 * src/follow/follower-store.ts; the pass itself runs in the Worker
 * (src/follow/cron-pass.ts).
 */
import type { FollowCursor, SkippedPage } from "../src/follow/follower.ts";
import { FollowerStore, type PassRecord, type SkippedRecord } from "../src/follow/follower-store.ts";
import { storeShell } from "./store-shell.ts";

export class WikiFollower extends storeShell((storage) => new FollowerStore(storage)) {
  cursor(): FollowCursor | null {
    return this.store.cursor();
  }

  save(holder: string, cursor: FollowCursor): boolean {
    return this.store.save(holder, cursor, Date.now());
  }

  acquire(holder: string, ms: number): boolean {
    return this.store.acquire(holder, Date.now(), ms);
  }

  release(holder: string): void {
    this.store.release(holder);
  }

  recordPass(record: PassRecord): void {
    this.store.recordPass(record);
  }

  recordSkip(skip: SkippedPage): void {
    this.store.recordSkip(skip);
  }

  skipped(): SkippedRecord[] {
    return this.store.skipped();
  }

  settleSkip(title: string, skip: SkippedPage | null): void {
    this.store.settleSkip(title, skip);
  }

  askRetry(which: { title: string } | "all"): number {
    return this.store.askRetry(which, Date.now());
  }

  retryAsked(): string[] {
    return this.store.retryAsked();
  }

  status(): {
    cursor: FollowCursor | null;
    running: { holder: string; untilMs: number } | null;
    lastPass: PassRecord | null;
    skipped: SkippedRecord[];
  } {
    return {
      cursor: this.store.cursor(),
      running: this.store.holder(Date.now()),
      lastPass: this.store.lastPass(),
      skipped: this.store.skipped(),
    };
  }
}
