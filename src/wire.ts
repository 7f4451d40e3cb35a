/**
 * The JSON the archive's API answers, one type per answer, and the one
 * request body a client builds by hand. The routes produce them
 * (`c.json(body satisfies WriteBody)`, so tsc fails when an answer drifts
 * from its type), and the archive client (src/tools/local/archive-client.ts),
 * the CLI, the benches and the tests read them. Each is made of the types of
 * the server module that builds the answer: nothing here is written twice.
 *
 * @example
 * import type { PurgeStatusBody } from "./wire.ts";
 * const status = (await res.json()) as PurgeStatusBody;
 * status.tiers.filter((t) => !t.acknowledged);
 */
import type { LIMITS } from "./limits.ts";
import type { TierOverview } from "./dashboard/tier-overview.ts";
import type { TitleMatch } from "./page/directory.ts";
import type { AppendResult, ListedRevision, PageStats, ShardStorage } from "./page/types.ts";
import type { AuditPage } from "./purge/audit.ts";
import type { TakedownPage } from "./purge/takedown-log.ts";
import type { PurgeReceipt } from "./purge/ingest.ts";
import type { PurgeView } from "./purge/status.ts";

/** `GET /healthz`. */
export interface HealthBody {
  status: "ok";
  version: string;
  codec: { build: string; brotli: string; lz4: string };
}

/** `GET /api/limits`: the LIMITS table (src/limits.ts). */
export interface LimitsBody {
  limits: typeof LIMITS;
}

/** `POST /api/pages/{title}/revisions`: 201 if it created any revision, else 200. */
export type WriteBody = { page: string } & Omit<Extract<AppendResult, { ok: true }>, "ok">;

/** `PUT /api/pages/{title}/revisions/{id}/suppression`. */
export interface SuppressionBody {
  page: string;
  revision: ListedRevision;
  purges: string[];
}

/** `PUT /api/pages/{title}/deletion`: the page is now deleted (restorable) or restored. */
export interface PageDeletionBody {
  page: string;
  deleted: boolean;
  /** How many revisions the page has. */
  revisions: number;
  purges: string[];
}

/** `DELETE /api/pages/{title}`. */
export interface DeletionBody {
  page: string;
  deleted: true;
  /** How many revisions the page had. */
  revisions: number;
  purges: string[];
}

/**
 * `GET /api/pages`: page keys in key order, with their revision counts when known; `next` is the following list's
 * `after`.
 */
export interface PageListBody {
  pages: Array<Pick<TitleMatch, "key" | "revisions" | "deleted">>;
  next: string | null;
}

/** `GET /api/pages/{title}/stats`. */
export type PageStatsBody = PageStats;

/**
 * `GET /api/storage`: what every PageStore shard stores, added up (`total`), and each shard's own
 * figures (`shards`, by shard number): the archive's true SQLite bytes, where a page's
 * `metadataBytes` is its share of its shard's.
 */
export interface StorageBody {
  /** Sums over the shards; `shards` is how many there are. */
  total: ShardStorage;
  shards: ShardStorage[];
}

/** `POST /api/purges`: Cloudflare's purge body, one kind per request (src/purge/ingest.ts validates it). */
export type OperatorPurgeBody = (
  | { files: Array<string | { url: string; headers?: Record<string, string> }> }
  | { tags: string[] }
  | { prefixes: string[] }
  | { hosts: string[] }
  | { purge_everything: true }
) & { soft?: boolean };

/** `POST /api/purges` answered 202: the receipt, with `success` and `result` as Cloudflare's API answers. */
export type PurgeReceiptBody = PurgeReceipt & {
  success: true;
  errors: never[];
  messages: never[];
  result: { id: string };
};

/** `GET /api/purges/{id}`: every tier's acknowledgement. */
export type PurgeStatusBody = PurgeView;

/** One tier's row of a {@link PurgeStatusBody}. */
export type PurgeTierStatus = PurgeStatusBody["tiers"][number];

/** `GET /api/purges`: the audit log, newest first. */
export type AuditPageBody = AuditPage & { links: { next: string | null } };

/** `GET /api/takedowns`: the takedown log (hides, shows, page deletions and restores), newest first. */
export type TakedownPageBody = TakedownPage & { links: { next: string | null } };

/**
 * `GET /api/tiers`: the tiers, queues and pools (src/dashboard/tier-overview.ts), and this isolate's lower-tier
 * counters.
 */
export type TiersBody = TierOverview & { lower: { isolateCounters: Record<string, number> } };

/**
 * `GET /api/follow`: the deployment's wiki follower (src/follow/follower-store.ts, where it is defined for the
 * dashboard too).
 */
export type { FollowStatusBody } from "./follow/follower-store.ts";

/** `POST /api/follow/retry`: how many skipped pages the next pass will try again. */
export interface FollowRetryBody {
  wiki: string;
  asked: number;
}
