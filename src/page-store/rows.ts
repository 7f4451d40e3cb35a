/**
 * A PageStore shard's SQLite rows, as the modules that share them read
 * them: {@link PageDb} is one page's view of its shard's database, and
 * every query it makes names the page's `pg`. The tables themselves are
 * described once, in durable-objects/page-store.md.
 */
import type { ListedRevision, RevisionMeta, StoreProblem } from "../page/types.ts";
import { blockOf, decodeMetaRecord, encodeMetaRecord, META_BLOCK, slotOf, type MetaEntry } from "./meta-records.ts";

/** `pg` of a page this shard never held: no row has it, so every query of its view finds nothing. */
export const UNCLAIMED = -1;

/** `pg` of the shard's own values in `kv` (pages start at 1). */
export const SHARD_PG = 0;

/** Keys of the shard's own values in `kv`, under SHARD_PG. */
export const SHARD_KV = {
  /** The shard count the shard was created under (src/bindings.ts shardOf). */
  shards: "shards",
  /** Revisions its pages hold, for each page's share of the database (pageStats). */
  revisions: "revisions",
} as const;

/** Keys of the `kv` table (src/page-store/schema.ts), under a page's pg. */
export const KV = {
  version: "version",
  /** A revision id of a deleted incarnation of the page (`r:<id>`): its content key (`revs.h`). */
  retired: (revId: number) => `r:${revId}`,
  retiredPrefix: "r:",
  group: (k: number) => `g:${k}`,
  tail: (u: number) => `t:${u}`,
  /** [from, to) ranges of each kind's keys, for range deletes and scans. */
  tails: ["t:", "t;"],
  groups: ["g:", "g;"],
  /** Present while the page is deleted as MediaWiki deletes (restorable): the time, in ms. */
  hidden: "hidden",
  /** The page's id on its wiki, when a write gave it: an export's `<page><id>`. */
  wikiPageId: "page_id",
} as const;

/**
 * Bits of `revs.hidden`: what else than its content a revision hides (its content's suppression is
 * `revs.suppressed`), and whether the archive ever held its text.
 */
export const HIDDEN = {
  comment: 2,
  contributor: 4,
  /** The text was hidden on the wiki before the archive first read it: no content is stored. */
  textMissing: 8,
} as const;

export interface PageRow {
  pg: number;
  key: string;
  title: string;
  latest_seq: number | null;
  content_count: number;
  anchors_blob: string | null;
  layout: string;
  deleted_at: number | null;
  raw_bytes: number;
  [key: string]: SqlStorageValue;
}

/** A revision's indexed row: what listings, lookups and Memento navigation need. */
export interface RevRow {
  seq: number;
  rev_id: number;
  ts: number;
  /** Its distinct content; identical revisions share one. */
  u: number;
  /** The first 48 bits of the content's SHA-256, for finding identical contents. */
  h: number;
  suppressed: number;
  /** HIDDEN bits. */
  hidden: number;
  [key: string]: SqlStorageValue;
}

/** Record blocks per page in `meta`'s rowid space: a page's records are ids [pg·2^24, (pg+1)·2^24). */
const META_IDS_PER_PAGE = 2 ** 24;

/**
 * The `meta` rowid of a page's record block (16 revisions a block: 268 million revisions a page; 2^29 pages a shard).
 */
export const metaId = (pg: number, block: number): number => pg * META_IDS_PER_PAGE + block;

/** A revision with its metadata record entry. */
export type Revision = { [K in keyof RevRow as string extends K ? never : K]: RevRow[K] } & MetaEntry;

/**
 * 48 bits: exact in a JS number and in SQLite's 6-byte integer. Collisions are told apart by the full hash in the
 * record.
 */
export const contentKey = (sha256Hex: string): number => Number.parseInt(sha256Hex.slice(0, 12), 16);

/** An expected failure, returned across RPC (an exception would lose its fields). */
export const refusal = (
  status: StoreProblem["status"],
  code: string,
  detail: string,
  extra: Partial<StoreProblem> = {},
): StoreProblem => ({
  ok: false,
  status,
  code,
  detail,
  ...extra,
});

export const pageNotFound = () => refusal(404, "page_not_found", "no such page in the archive");

/** Whether `publicPage` refused. */
export const isRefused = (p: PageRow | StoreProblem): p is StoreProblem => p.ok === false;

/**
 * The page as public answers may show it: 404 if there is none, 410 if it was deleted (for good, or
 * as MediaWiki deletes, restorably). `withDeleted` (a backup-scope export) sees a restorable deletion.
 */
export function publicPage(db: PageDb, withDeleted = false): PageRow | StoreProblem {
  const page = db.page();
  if (!page) return pageNotFound();
  if (page.deleted_at != null || (!withDeleted && db.kvGet(KV.hidden) !== undefined))
    return refusal(410, "page_deleted", `the page ${page.title} was deleted`);
  return page;
}

export function toMeta(r: Revision): RevisionMeta {
  return {
    id: r.rev_id,
    parentId: r.parentId,
    timestamp: new Date(r.ts * 1000).toISOString().replace(".000Z", "Z"),
    contributor: r.contributor,
    comment: r.comment,
    model: r.model,
    format: r.format,
    bytes: r.bytes,
    sha1: r.sha1,
    sha256: r.sha256,
    suppressed: r.suppressed !== 0,
    tags: r.tags,
    ...(r.hidden & HIDDEN.comment ? { commentHidden: true } : {}),
    ...(r.hidden & HIDDEN.contributor ? { contributorHidden: true } : {}),
    ...(r.hidden & HIDDEN.textMissing ? { textMissing: true } : {}),
  };
}

/** A revision's metadata as public answers show it: a hidden comment or contributor is empty. */
export function publicMeta(meta: RevisionMeta): RevisionMeta {
  if (!meta.commentHidden && !meta.contributorHidden) return meta;
  return {
    ...meta,
    comment: meta.commentHidden ? "" : meta.comment,
    contributor: meta.contributorHidden ? "" : meta.contributor,
  };
}

/**
 * A revision as listings show it: a suppressed one without its size and hashes (ListedRevision), a
 * hidden comment or contributor empty (flagged), unless `withHidden` (a backup-scope export).
 */
export function toListed(r: Revision, withHidden = false): ListedRevision {
  const meta = withHidden ? toMeta(r) : publicMeta(toMeta(r));
  if (!meta.suppressed) return { ...meta, suppressed: false };
  const { bytes: _bytes, sha1: _sha1, sha256: _sha256, ...kept } = meta;
  return { ...kept, suppressed: true };
}

const REV_COLUMNS = "seq, rev_id, ts, u, h, suppressed, hidden";

/**
 * One page's view of its shard's database: the queries every job needs,
 * each scoped to the page's `pg`. A view of a page the shard never held
 * (`pg` UNCLAIMED) finds nothing and touches no table, so it works on a
 * shard whose schema was never made; `claim` gives the page its `pg`, on
 * its first write.
 */
export class PageDb {
  readonly sql: SqlStorage;

  constructor(
    private readonly storage: DurableObjectStorage,
    readonly key: string,
    public pg: number,
  ) {
    this.sql = storage.sql;
  }

  /** The view of page `key`; `written` says whether the shard's schema exists (nothing is read otherwise). */
  static open(storage: DurableObjectStorage, key: string, written: boolean): PageDb {
    const pg = written
      ? (storage.sql.exec<{ pg: number }>("SELECT pg FROM pages WHERE key = ?", key).toArray()[0]?.pg ?? UNCLAIMED)
      : UNCLAIMED;
    return new PageDb(storage, key, pg);
  }

  /** Whether the shard holds a row for this page (committed or not). */
  get claimed(): boolean {
    return this.pg !== UNCLAIMED;
  }

  /** Gives the page its pg, if it has none: before its first blobs are written (their key space is the page's). */
  claim(title: string): number {
    if (this.claimed) return this.pg;
    this.pg = this.sql
      .exec<{ pg: number }>("INSERT INTO pages (key, title) VALUES (?, ?) RETURNING pg", this.key, title)
      .one().pg;
    return this.pg;
  }

  transaction<T>(fn: () => T): T {
    return this.storage.transactionSync(fn);
  }

  /** The page as its last commit left it; null before its first commit (or if the shard never held it). */
  page(): PageRow | null {
    if (!this.claimed) return null;
    return (
      this.sql.exec<PageRow>("SELECT * FROM pages WHERE pg = ? AND layout IS NOT NULL", this.pg).toArray()[0] ?? null
    );
  }

  /** The page if it exists and is not deleted for good (a restorable deletion still takes changes). */
  livePage(): PageRow | null {
    const page = this.page();
    return page && page.deleted_at == null ? page : null;
  }

  /**
   * Indexed rows of this page; `more` and `args` follow `SELECT … FROM revs WHERE pg = ?` (`AND seq = ?`, `ORDER BY
   * …`).
   */
  rows(more: string, ...args: SqlStorageValue[]): RevRow[] {
    if (!this.claimed) return [];
    return this.sql.exec<RevRow>(`SELECT ${REV_COLUMNS} FROM revs WHERE pg = ? ${more}`, this.pg, ...args).toArray();
  }

  /** Whether any row of this page matches (`more` as in `rows`). */
  hasRow(more: string, ...args: SqlStorageValue[]): boolean {
    if (!this.claimed) return false;
    return this.sql.exec(`SELECT 1 FROM revs WHERE pg = ? ${more} LIMIT 1`, this.pg, ...args).toArray().length > 0;
  }

  /** The rows with their metadata, each record decoded once however many of its revisions are asked for. */
  withMeta(rows: readonly RevRow[]): Revision[] {
    const records = new Map<number, MetaEntry[]>();
    return rows.map((row) => {
      const block = blockOf(row.seq);
      let entries = records.get(block);
      if (!entries) {
        entries = this.metaBlock(block);
        records.set(block, entries);
      }
      const entry = entries[slotOf(row.seq)];
      if (!entry) throw new Error(`revision ${row.rev_id} (seq ${row.seq}) has no metadata record entry`);
      return { ...row, ...entry };
    });
  }

  latestRow(page: PageRow): Revision | null {
    if (page.latest_seq === null) return null;
    const row = this.rows("AND seq = ?", page.latest_seq)[0];
    return row ? this.withMeta([row])[0]! : null;
  }

  revisionById(id: number): Revision | undefined {
    const row = this.rows("AND rev_id = ?", id)[0];
    return row ? this.withMeta([row])[0] : undefined;
  }

  /**
   * Revisions whose content has this SHA-256, newest first, through the
   * revs_by_content index; `extra` narrows further (`AND suppressed = 0`).
   */
  *withContent(sha256Hex: string, extra = ""): Generator<Revision> {
    for (const row of this.rows(`AND h = ? ${extra} ORDER BY seq DESC`, contentKey(sha256Hex))) {
      const full = this.withMeta([row])[0]!;
      if (full.sha256 === sha256Hex) yield full;
    }
  }

  metaBlock(block: number): MetaEntry[] {
    if (!this.claimed) return [];
    const record = this.sql
      .exec<{ record: ArrayBuffer }>("SELECT record FROM meta WHERE id = ?", metaId(this.pg, block))
      .toArray()[0]?.record;
    return record ? decodeMetaRecord(new Uint8Array(record)) : [];
  }

  /** Changes fields of revision `seq`'s metadata entry; call inside the change's transaction. */
  updateMeta(seq: number, change: Partial<MetaEntry>): void {
    const block = blockOf(seq);
    const entries = this.metaBlock(block);
    const entry = entries[slotOf(seq)];
    if (!entry) throw new Error(`seq ${seq} has no metadata record entry`);
    entries[slotOf(seq)] = { ...entry, ...change };
    this.sql.exec("UPDATE meta SET record = ? WHERE id = ?", encodeMetaRecord(entries), metaId(this.pg, block));
  }

  /** Records the metadata of revisions seq firstSeq, firstSeq + 1, …; call inside the commit's transaction. */
  appendMeta(firstSeq: number, entries: readonly MetaEntry[]): void {
    let seq = firstSeq;
    for (let i = 0; i < entries.length;) {
      const block = blockOf(seq);
      const existing = slotOf(seq) === 0 ? [] : this.metaBlock(block);
      if (existing.length !== slotOf(seq))
        throw new Error(`metadata block ${block} holds ${existing.length} entries; seq ${seq} needs ${slotOf(seq)}`);
      const take = entries.slice(i, i + (META_BLOCK - existing.length));
      this.sql.exec(
        "INSERT INTO meta (id, record) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record",
        metaId(this.pg, block),
        encodeMetaRecord([...existing, ...take]),
      );
      i += take.length;
      seq += take.length;
    }
  }

  kvGet(key: string): SqlStorageValue | undefined {
    if (!this.claimed) return undefined;
    return this.sql.exec<{ v: SqlStorageValue }>("SELECT v FROM kv WHERE pg = ? AND k = ?", this.pg, key).toArray()[0]
      ?.v;
  }

  kvPut(key: string, value: SqlStorageValue): void {
    this.sql.exec(
      "INSERT INTO kv (pg, k, v) VALUES (?, ?, ?) ON CONFLICT (pg, k) DO UPDATE SET v = excluded.v",
      this.pg,
      key,
      value,
    );
  }

  kvDelete(key: string): void {
    this.sql.exec("DELETE FROM kv WHERE pg = ? AND k = ?", this.pg, key);
  }

  /** Rows of a [from, to) key range of this page's `kv`. */
  kvRange([from, to]: readonly [string, string]): Array<{ k: string; v: SqlStorageValue }> {
    if (!this.claimed) return [];
    return this.sql
      .exec<{
        k: string;
        v: SqlStorageValue;
      }>("SELECT k, v FROM kv WHERE pg = ? AND k >= ? AND k < ?", this.pg, from, to)
      .toArray();
  }

  kvDeleteRange([from, to]: readonly [string, string]): void {
    this.sql.exec("DELETE FROM kv WHERE pg = ? AND k >= ? AND k < ?", this.pg, from, to);
  }

  /** Deletes every metadata record of the page; call inside the change's transaction. */
  deleteMeta(): void {
    this.sql.exec("DELETE FROM meta WHERE id >= ? AND id < ?", metaId(this.pg, 0), metaId(this.pg + 1, 0));
  }

  /** Adds `delta` to the shard's count of revisions; call inside the change's transaction. */
  countRevisions(delta: number): void {
    if (delta === 0) return;
    this.sql.exec(
      "INSERT INTO kv (pg, k, v) VALUES (?, ?, ?) ON CONFLICT (pg, k) DO UPDATE SET v = v + excluded.v",
      SHARD_PG,
      SHARD_KV.revisions,
      delta,
    );
  }

  /** The page's version: bumped by every write, suppression and deletion, never reset. */
  version(): number {
    return Number(this.kvGet(KV.version) ?? 0);
  }

  /** Bumps the version; call inside the change's transaction. */
  bumpVersion(): number {
    const next = this.version() + 1;
    this.kvPut(KV.version, next);
    return next;
  }

  /**
   * The page's share of its shard's database: the shard's size times the page's weight (its revisions,
   * and 1 for its own row) over the shard's (every revision, every page). Rows of a revision are about
   * the same size whatever its page, so this is what the page costs within a few hundred bytes; the
   * shard's own fixed tables are shared out the same way.
   */
  databaseShare(): number {
    if (!this.claimed) return 0;
    const revisions = Number(
      this.sql.exec<{ v: number }>("SELECT v FROM kv WHERE pg = ? AND k = ?", SHARD_PG, SHARD_KV.revisions).toArray()[0]
        ?.v ?? 0,
    );
    const pages = this.sql.exec<{ n: number | null }>("SELECT max(pg) AS n FROM pages").one().n ?? 0;
    const own = (this.page()?.latest_seq ?? 0) + 1;
    return Math.round((this.sql.databaseSize * own) / Math.max(own, revisions + pages));
  }
}
