/**
 * What the archive stores: pages, revisions, raw against stored bytes, per
 * page and in total, from the figures each PageStore reports to its
 * directory shard. One listing asks all 32 shards at once and merges their
 * pages in key order, so it never wakes a PageStore.
 *
 * @example
 * const { totals, pages, next } = await storageOverview(env, { limit: 50 });
 * await storageOverview(env, { after: next!, limit: 50 }); // the following pages
 */
import { directoryShards } from "../bindings.ts";
import { sumTotals, type DirectorySurvey, type PageFigures, type StorageTotals } from "../page/directory.ts";

export type { PageFigures, StorageTotals } from "../page/directory.ts";

export interface StorageOverview {
  totals: StorageTotals;
  pages: Array<{ key: string; figures: PageFigures | null }>;
  /** The cursor (`after`) for the following pages, or null at the end. */
  next: string | null;
}

export async function storageOverview(
  env: Env,
  { after = "", limit }: { after?: string; limit: number },
): Promise<StorageOverview> {
  const surveys: DirectorySurvey[] = await Promise.all(
    directoryShards(env).map((shard) => shard.survey(after, limit + 1)),
  );
  const totals = sumTotals(surveys.map((s) => s.totals));
  // Each shard sent its first limit + 1 pages after the cursor, so the merged first limit + 1 are the true ones.
  const merged = surveys.flatMap((s) => s.pages).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const pages = merged.slice(0, limit);
  return { totals, pages, next: merged.length > limit ? pages[pages.length - 1]!.key : null };
}
