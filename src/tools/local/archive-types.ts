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
  /** What the archive accepted but says the writer should know (a revision dated before its parent); absent from older archives. */
  warnings?: Array<{ code: string; revisionId: number; detail: string }>;
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
  lastError?: string | null;
}

/** `GET /api/purges/{id}`. */
export interface PurgeStatusBody {
  id: string;
  event: { createdAt: number; seq: number; queue: string } | null;
  /** When the queue logged it, and when the last tier acknowledged it (null while pending); the queue's clock. */
  createdAt?: number | null;
  completedAt?: number | null;
  state?: "pending" | "complete";
  tiers: PurgeTierStatus[];
  acknowledged: boolean;
}

/** `POST /api/purges`: Cloudflare's purge body, one kind per request. */
export type OperatorPurgeBody = ({ files: string[] } | { tags: string[] } | { prefixes: string[] } | { hosts: string[] } | { purge_everything: true }) & { soft?: boolean };

/** `POST /api/purges` answered 202. */
export interface PurgeReceiptBody {
  id: string;
  accepted: string[];
  dropped: Array<{ item: string; reason: string }>;
  keys: number;
}

/** `GET /api/tiers`. */
export interface TiersStatsBody {
  tiers: Array<{ tier: string; level: string; region: string; counters: Record<string, number>; applied: Record<string, { seq: number; at: number }> }>;
  queues: Array<{ region: string; queue: string; lastSeq: number; depth: number; lagging: number }>;
  lower: { isolateCounters: Record<string, number> };
}
