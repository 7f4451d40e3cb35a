/**
 * A cached read: the origin's answer for one cache key, as every tier holds
 * it. Structured-clonable, so it crosses Durable Object RPC as-is.
 */
export interface TierEntry {
  status: number;
  headers: Array<[string, string]>;
  body: Uint8Array;
  /** Page version the answer reflects. */
  version: number;
  /** Page key the entry belongs to, for purges. */
  page: string;
  mutable: boolean;
  /** When the origin produced it (ms); a flush drops everything produced before it. */
  storedAt: number;
  /** A 404 for a page nobody has written: tiers keep it briefly (TOPOLOGY.notFoundSeconds). */
  negative?: boolean;
}

/** Which tier answered, for the debug headers and the counters. */
export type TierName = "lower" | "regional" | "upper" | "origin";

export interface TierRead {
  entry: TierEntry;
  servedBy: TierName;
}

/** What the origin must produce for a key; the key is derived from it. */
export type OriginQuery =
  | { kind: "revision"; page: string; id: number }
  | { kind: "latest"; page: string; at?: number }
  | { kind: "history"; page: string; limit: number; cursor?: string };

export interface TierRequest {
  query: OriginQuery;
  key: string;
  page: string;
  mutable: boolean;
  /** Refuse anything older than this page version. */
  minVersion: number;
  /** Region of the data centre asking, for simulated link latency. */
  fromRegion: string;
}

export function etagOf(entry: TierEntry): string | undefined {
  return entry.headers.find(([k]) => k === "etag")?.[1];
}

/**
 * Cache-Tags of an entry, for Cloudflare's purge-by-tag: every entry of a
 * page, and its mutable ones (latest, history, time resolution, 404s).
 */
export function cacheTagsOf(entry: Pick<TierEntry, "page" | "mutable">): string[] {
  const page = encodeURIComponent(entry.page);
  return entry.mutable ? [`page:${page}`, `mutable:${page}`] : [`page:${page}`];
}
