/**
 * What each kind of answer tells browsers and shared caches, so it matches
 * what the archive does. A specific revision's bytes never change under its
 * URL (a deleted page's ids are retired: a later page of that title cannot
 * reuse one for other content), but it can stop being served: a suppression
 * or a deletion makes it a 410. Our own tiers hear of that as a purge;
 * caches downstream cannot, so a revision is fresh for 10 minutes and then
 * revalidated (its strong ETag makes that a 304), and may be served stale
 * while revalidating for a day more, so a suppression is seen everywhere
 * within 10 minutes and one stale answer. Not `immutable`: that would keep a
 * suppressed body in browsers for a year.
 *
 * What a write changes (latest, `?at=`, history pages, TimeMaps, Memento
 * links) is fresh for the lower tier's refresh interval (wrangler.toml
 * `refreshSeconds`, 60) and may then be served stale while revalidating up
 * to the tiers' own limit (`maxStaleSeconds`, 300).
 *
 * @example
 * import { CACHE_CONTROL } from "./cache-control.ts";
 * headers["cache-control"] = CACHE_CONTROL.timemap;
 */
export const CACHE_CONTROL = {
  revision: "public, max-age=600, stale-while-revalidate=86400",
  /** Latest, `?at=` and history pages. */
  changing: "public, max-age=60, stale-while-revalidate=240",
  /** TimeMaps and Memento answers change exactly as history does. */
  timemap: "public, max-age=60, stale-while-revalidate=240",
} as const;
