/**
 * The PageStore's SQLite rows, as the modules that share them read them.
 * The tables themselves are described once, in durable-objects/page-store.md.
 */
import { toHex } from "../hash/digests.ts";
import type { RevisionMeta, StoreProblem } from "../page/types.ts";

export interface PageRow {
  title: string;
  latest_seq: number | null;
  content_count: number;
  anchors_blob: string | null;
  layout: string;
  deleted_at: number | null;
  [key: string]: SqlStorageValue;
}

export interface RevisionRow {
  seq: number;
  rev_id: number;
  parent_id: number | null;
  ts: number;
  contributor: string;
  comment: string;
  model: string;
  format: string;
  bytes: number;
  sha1: string;
  /** 32 raw bytes: half the size of hex, in the row and in its index. */
  sha256: ArrayBuffer;
  u: number;
  suppressed: number;
  /** Comma-separated (a tag never holds a comma). */
  tags: string;
  [key: string]: SqlStorageValue;
}

/** An expected failure, returned across RPC (an exception would lose its fields). */
export const refusal = (status: StoreProblem["status"], code: string, detail: string, extra: Partial<StoreProblem> = {}): StoreProblem => ({
  ok: false,
  status,
  code,
  detail,
  ...extra,
});

export const pageNotFound = () => refusal(404, "page_not_found", "no such page in the archive");

export function toMeta(r: RevisionRow): RevisionMeta {
  return {
    id: r.rev_id,
    parentId: r.parent_id,
    timestamp: new Date(r.ts * 1000).toISOString().replace(".000Z", "Z"),
    contributor: r.contributor,
    comment: r.comment,
    model: r.model,
    format: r.format,
    bytes: r.bytes,
    sha1: r.sha1,
    sha256: toHex(new Uint8Array(r.sha256)),
    suppressed: r.suppressed !== 0,
    tags: r.tags ? r.tags.split(",") : [],
  };
}

/** One page's database: the queries every job needs. */
export class PageDb {
  readonly sql: SqlStorage;

  constructor(private readonly storage: DurableObjectStorage) {
    this.sql = storage.sql;
  }

  transaction<T>(fn: () => T): T {
    return this.storage.transactionSync(fn);
  }

  page(): PageRow | null {
    return this.sql.exec<PageRow>("SELECT * FROM page WHERE id = 1").toArray()[0] ?? null;
  }

  /** The page if it exists and is not deleted. */
  livePage(): PageRow | null {
    const page = this.page();
    return page && page.deleted_at == null ? page : null;
  }

  latestRow(page: PageRow): RevisionRow | null {
    if (page.latest_seq === null) return null;
    return this.sql.exec<RevisionRow>("SELECT * FROM revisions WHERE seq = ?", page.latest_seq).toArray()[0] ?? null;
  }

  revisionById(id: number): RevisionRow | undefined {
    return this.sql.exec<RevisionRow>("SELECT * FROM revisions WHERE rev_id = ?", id).toArray()[0];
  }

  /** The page's version: bumped by every write, suppression and deletion, never reset. */
  version(): number {
    return this.sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = 'version'").toArray()[0]?.value ?? 0;
  }

  /** Bumps the version; call inside the change's transaction. */
  bumpVersion(): number {
    return this.sql
      .exec<{ value: number }>("INSERT INTO counters (name, value) VALUES ('version', 1) ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value")
      .one().value;
  }

  databaseBytes(): number {
    return this.sql.databaseSize;
  }
}
