/**
 * Which pages exist, as the PageDirectory shards record them, with a
 * per-isolate memory of titles known to exist: a page, once written, keeps
 * its PageStore (a deleted page answers 410 from it), so a positive answer
 * never goes stale. The shards also keep each page's storage figures, as
 * its PageStore last reported them.
 */
import { directoryOf } from "../bindings.ts";
import { Lru } from "../cache/lru.ts";

const known = new Lru<string, true>(50_000);

export async function pageExists(env: Env, key: string): Promise<boolean> {
  if (known.get(key)) return true;
  const exists = await directoryOf(env, key).has(key);
  if (exists) known.set(key, true);
  return exists;
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
  deleted: boolean;
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
