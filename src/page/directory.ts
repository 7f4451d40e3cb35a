/**
 * Which pages exist, as the PageDirectory shards record them, with a
 * per-isolate memory of titles known to exist: a page, once written, keeps
 * its PageStore (a deleted page answers 410 from it), so a positive answer
 * never goes stale. The shards also keep each page's storage figures, as
 * its PageStore last reported them.
 */
import { directoryOf, directoryShards } from "../bindings.ts";
import { ProblemError } from "../http/problem.ts";
import { Lru } from "../lib/lru.ts";
import type { PageRef } from "./page-ref.ts";

const known = new Lru<string, true>(50_000);

export async function pageExists(env: Env, key: string): Promise<boolean> {
  if (known.get(key)) return true;
  const exists = await directoryOf(env, key).has(key);
  if (exists) known.set(key, true);
  return exists;
}

/**
 * Refuses, with the 404 problem every route answers, a page the archive never held (one deleted, for
 * good or as MediaWiki deletes, still was); asking never creates its storage.
 */
export async function requirePage(env: Env, ref: PageRef): Promise<void> {
  if (await pageExists(env, ref.key)) return;
  throw new ProblemError({
    status: 404,
    code: "page_not_found",
    detail: "no such page in the archive",
    extensions: { page: ref.title },
  });
}

/** Lists a page; its PageStore does this before its first commit. */
export async function listPage(env: Env, key: string): Promise<void> {
  await directoryOf(env, key).add(key);
  known.set(key, true);
}

/** A page's storage after a change, as its PageStore measured it. */
export interface PageFigures {
  title: string;
  /** The page's version when measured: a late report never replaces a newer one. */
  version: number;
  /** Deleted for good, or as MediaWiki deletes; `restorable` tells the second. */
  deleted: boolean;
  restorable?: boolean;
  revisions: number;
  /** Bytes of every revision's text, as written. */
  rawBytes: number;
  /** Bytes of the live blobs in KV: what the revisions cost stored. */
  blobBytes: number;
  /** Bytes of the page's SQLite database. */
  metadataBytes: number;
  reportedAt: number;
}

export interface StorageTotals {
  pages: number;
  /** Pages whose PageStore has reported since figures were kept; the sums cover only these. */
  reported: number;
  deleted: number;
  revisions: number;
  rawBytes: number;
  blobBytes: number;
  metadataBytes: number;
}

/** Totals of no page: every count and sum 0. */
export const emptyTotals = (): StorageTotals => ({
  pages: 0,
  reported: 0,
  deleted: 0,
  revisions: 0,
  rawBytes: 0,
  blobBytes: 0,
  metadataBytes: 0,
});

/** The shards' totals added up. */
export function sumTotals(shards: StorageTotals[]): StorageTotals {
  const totals = emptyTotals();
  for (const s of shards) for (const name of Object.keys(totals) as Array<keyof StorageTotals>) totals[name] += s[name];
  return totals;
}

/** One shard's answer: its totals, and a run of its pages in key order. */
export interface DirectorySurvey {
  totals: StorageTotals;
  pages: Array<{ key: string; figures: PageFigures | null }>;
}

/**
 * Records a page's figures in its shard, measured when this runs. Never
 * throws: the figures feed an operator's view, and a write that committed
 * must not fail over them.
 */
export async function reportFigures(env: Env, key: string, measure: () => PageFigures): Promise<void> {
  try {
    await directoryOf(env, key).report(key, measure());
  } catch (err) {
    console.warn("page figures not reported", { key }, err);
  }
}

/** A title a prefix search found, with its figures when its PageStore has reported them. */
export interface TitleMatch {
  key: string;
  revisions: number | null;
  /** Deleted (only a backup's listing shows such a page: deleted as MediaWiki deletes, restorable). */
  deleted: boolean;
  /** When the page last changed (its figures' report time, ms), if known. */
  changedAt: number | null;
}

export interface RecentPage {
  key: string;
  title: string;
  revisions: number;
  changedAt: number;
}

/** One shard's share of the front page. */
export interface DirectoryOverview {
  totals: StorageTotals;
  recent: RecentPage[];
}

/**
 * Titles (keys) starting with `prefix`, after the cursor `after`, in key
 * order across every shard. Deleted pages are never listed, except, with
 * `withDeleted` (a backup), those deleted as MediaWiki deletes (restorable). Each shard sends at most `limit + 1`
 * matches, so the merged first `limit` are the true ones and the read stays bounded by 32 × (limit + 1) rows, however
 * many titles match.
 */
export async function searchTitles(
  env: Env,
  prefix: string,
  { after = "", limit, withDeleted = false }: { after?: string; limit: number; withDeleted?: boolean },
): Promise<{ matches: TitleMatch[]; next: string | null }> {
  const answers = await Promise.all(
    directoryShards(env).map((shard) => shard.search(prefix, after, limit + 1, withDeleted)),
  );
  const merged = answers.flat().sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const matches = merged.slice(0, limit);
  return { matches, next: merged.length > limit ? matches[matches.length - 1]!.key : null };
}

/** Totals over every shard, and the `recent` most recently changed live pages, newest first. */
export async function archiveOverview(env: Env, recent: number): Promise<DirectoryOverview> {
  const answers = await Promise.all(directoryShards(env).map((shard) => shard.overview(recent)));
  const totals = sumTotals(answers.map((a) => a.totals));
  const pages = answers.flatMap((a) => a.recent).sort((a, b) => b.changedAt - a.changedAt || (a.key < b.key ? -1 : 1));
  return { totals, recent: pages.slice(0, recent) };
}
