/**
 * The PageStore's SQLite rows, as the modules that share them read them.
 * The tables themselves are described once, in durable-objects/page-store.md.
 */
import type { ListedRevision, RevisionMeta, StoreProblem } from "../page/types.ts";
import { blockOf, decodeMetaRecord, encodeMetaRecord, META_BLOCK, slotOf, type MetaEntry } from "./meta-records.ts";

/** Keys of the `kv` table (src/page-store/schema.ts). */
export const KV = {
  version: "version",
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

/** A revision with its metadata record entry. */
export type Revision = { [K in keyof RevRow as string extends K ? never : K]: RevRow[K] } & MetaEntry;

/** 48 bits: exact in a JS number and in SQLite's 6-byte integer. Collisions are told apart by the full hash in the record. */
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

  /** The page if it exists and is not deleted for good (a restorable deletion still takes changes). */
  livePage(): PageRow | null {
    const page = this.page();
    return page && page.deleted_at == null ? page : null;
  }

  /** Indexed rows; `where` and `args` follow `SELECT … FROM revs`. */
  rows(where: string, ...args: SqlStorageValue[]): RevRow[] {
    return this.sql.exec<RevRow>(`SELECT ${REV_COLUMNS} FROM revs ${where}`, ...args).toArray();
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
    const row = this.rows("WHERE seq = ?", page.latest_seq)[0];
    return row ? this.withMeta([row])[0]! : null;
  }

  revisionById(id: number): Revision | undefined {
    const row = this.rows("WHERE rev_id = ?", id)[0];
    return row ? this.withMeta([row])[0] : undefined;
  }

  /**
   * Revisions whose content has this SHA-256, newest first, through the
   * revs_by_content index; `extra` narrows further (`AND suppressed = 0`).
   */
  *withContent(sha256Hex: string, extra = ""): Generator<Revision> {
    for (const row of this.rows(`WHERE h = ? ${extra} ORDER BY seq DESC`, contentKey(sha256Hex))) {
      const full = this.withMeta([row])[0]!;
      if (full.sha256 === sha256Hex) yield full;
    }
  }

  metaBlock(block: number): MetaEntry[] {
    const record = this.sql
      .exec<{ record: ArrayBuffer }>("SELECT record FROM meta WHERE block = ?", block)
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
    this.sql.exec("UPDATE meta SET record = ? WHERE block = ?", encodeMetaRecord(entries), block);
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
        "INSERT INTO meta (block, record) VALUES (?, ?) ON CONFLICT (block) DO UPDATE SET record = excluded.record",
        block,
        encodeMetaRecord([...existing, ...take]),
      );
      i += take.length;
      seq += take.length;
    }
  }

  kvGet(key: string): SqlStorageValue | undefined {
    return this.sql.exec<{ v: SqlStorageValue }>("SELECT v FROM kv WHERE k = ?", key).toArray()[0]?.v;
  }

  kvPut(key: string, value: SqlStorageValue): void {
    this.sql.exec("INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v", key, value);
  }

  /** Rows of a [from, to) key range of `kv`. */
  kvRange([from, to]: readonly [string, string]): Array<{ k: string; v: SqlStorageValue }> {
    return this.sql
      .exec<{ k: string; v: SqlStorageValue }>("SELECT k, v FROM kv WHERE k >= ? AND k < ?", from, to)
      .toArray();
  }

  kvDeleteRange([from, to]: readonly [string, string]): void {
    this.sql.exec("DELETE FROM kv WHERE k >= ? AND k < ?", from, to);
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

  databaseBytes(): number {
    return this.sql.databaseSize;
  }
}
