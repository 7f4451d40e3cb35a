/**
 * What each kind of answer tells browsers and shared caches, so it matches
 * what the archive does: a specific revision never changes (a suppression
 * is the one exception, and it reaches every tier of ours as a purge); what
 * a write changes (latest, `?at=`, history pages, TimeMaps, Memento links)
 * is fresh for the lower tier's refresh interval (wrangler.toml
 * `refreshSeconds`, 60) and may then be served stale while revalidating up
 * to the tiers' own limit (`maxStaleSeconds`, 300).
 *
 * @example
 * import { CACHE_CONTROL } from "../representation/cache-control.ts";
 * headers["cache-control"] = CACHE_CONTROL.timemap;
 */
export const CACHE_CONTROL = {
  revision: "public, max-age=31536000, immutable",
  /** Latest, `?at=` and history pages. */
  changing: "public, max-age=60, stale-while-revalidate=240",
  /** TimeMaps and Memento answers change exactly as history does. */
  timemap: "public, max-age=60, stale-while-revalidate=240",
} as const;
