/**
 * Canonical cache keys for reads. A key is the path plus the query
 * parameters the route reads, in a fixed order, so equivalent URLs share one
 * entry. Specific revisions are immutable; everything else about a page
 * (latest, history pages, time resolution) changes on a write.
 */
export interface CacheKey {
  key: string;
  page: string;
  mutable: boolean;
}

export function revisionKey(page: string, id: number): CacheKey {
  return { key: `/page/${page}/${id}`, page, mutable: false };
}

export function latestKey(page: string, atEpochSeconds?: number): CacheKey {
  return { key: atEpochSeconds === undefined ? `/page/${page}` : `/page/${page}?at=${atEpochSeconds}`, page, mutable: true };
}

export function historyKey(page: string, limit: number, cursor: string | undefined): CacheKey {
  return { key: `/page/${page}/history?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, page, mutable: true };
}
