/**
 * PageDirectory: which page titles exist, sharded by title, and what each
 * page stores. The origin asks it before touching a PageStore, so a read of
 * a title nobody wrote answers 404 without creating that page's Durable
 * Object and its database: anyone can send reads, and reads must not grow
 * storage.
 *
 * Each PageStore reports its figures (revisions, raw and stored bytes) here
 * after a change, so the storage view sums 32 shards instead of waking
 * every page. The public front page reads the same figures: totals, the
 * recently changed pages and title prefix search.
 *
 * A shell over src/page/directory-store.ts, which holds the tables.
 *
 * @example
 * await directoryOf(env, "BIP_0340").add("BIP_0340");
 * await directoryOf(env, "BIP_0340").has("BIP_0340"); // true
 */
import type { DirectoryOverview, DirectorySurvey, PageFigures, TitleMatch } from "../src/page/directory.ts";
import { DirectoryStore } from "../src/page/directory-store.ts";
import { storeShell } from "./store-shell.ts";

export class PageDirectory extends storeShell((storage) => new DirectoryStore(storage)) {
  has(key: string): boolean {
    return this.store.has(key);
  }

  add(key: string): void {
    this.store.add(key);
  }

  /** Records a page's figures; an older version never replaces a newer one. */
  report(key: string, figures: PageFigures): void {
    this.store.report(key, figures);
  }

  /** This shard's totals, and its pages after `after` in key order with their figures (null if never reported). */
  survey(after: string, limit: number): DirectorySurvey {
    return this.store.survey(after, limit);
  }

  /**
   * Titles starting with `prefix` (keys, so underscores), after `after`, in key order; deleted ones left out but for
   * `withDeleted`'s restorable ones.
   */
  search(prefix: string, after: string, limit: number, withDeleted = false): TitleMatch[] {
    return this.store.search(prefix, after, limit, withDeleted);
  }

  /** The front page's share of this shard: its totals and its most recently changed live pages. */
  overview(recent: number): DirectoryOverview {
    return this.store.overview(recent);
  }
}
