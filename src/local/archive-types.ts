/**
 * What the archive's JSON answers look like to its HTTP client
 * (archive-client.ts): only the fields the CLI and the benches read.
 */

/** What the importer needs of the archive's LIMITS table. */
export interface ArchiveLimits {
  /** `storage.maxRequestBytes`: the largest write body, in bytes, the archive accepts. */
  maxRequestBytes: number;
}

export interface AppendResult {
  created: number[];
  existing: number[];
  latestId: number | null;
  /** Purge ids the write committed, one per affected queue; none when nothing was created. */
  purges: string[];
}

/** `GET /api/pages/{key}/stats`. */
export interface PageStats {
  revisions: number;
  rawBytes: number;
  blobs: number;
  blobBytes: number;
  metadataBytes: number;
}

export interface PurgeTierStatus {
  tier: string;
  region: string;
  level: string;
  acknowledged: boolean;
  ackedAt: number | null;
}

/** `GET /api/purges/{id}`. */
export interface PurgeStatusBody {
  id: string;
  event: { createdAt: number; seq: number; queue: string } | null;
  tiers: PurgeTierStatus[];
  acknowledged: boolean;
}

/** `GET /api/tiers`. */
export interface TiersStatsBody {
  tiers: Array<{ tier: string; level: string; region: string; counters: Record<string, number>; applied: Record<string, { seq: number; at: number }> }>;
  queues: Array<{ region: string; queue: string; lastSeq: number; depth: number; lagging: number }>;
  lower: { isolateCounters: Record<string, number> };
}
