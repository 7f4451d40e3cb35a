/**
 * Canonical cache keys for reads. A key is the path plus the query
 * parameters the route reads, in a fixed order, so equivalent URLs share one
 * entry. The title is percent-encoded as in URLs, so a subpage's `/`
 * (`Help:Contents/Editing`) can never be read as a path separator. Specific revisions are immutable; everything else about a page
 * (latest, history pages, time resolution) changes on a write.
 */
export interface CacheKey {
  key: string;
  page: string;
  mutable: boolean;
}

const path = (page: string) => `/page/${encodeURIComponent(page)}`;

export function revisionKey(page: string, id: number): CacheKey {
  return { key: `${path(page)}/${id}`, page, mutable: false };
}

export function latestKey(page: string, atEpochSeconds?: number): CacheKey {
  return { key: atEpochSeconds === undefined ? path(page) : `${path(page)}?at=${atEpochSeconds}`, page, mutable: true };
}

export function historyKey(page: string, limit: number, cursor: string | undefined): CacheKey {
  return { key: `${path(page)}/history?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, page, mutable: true };
}
