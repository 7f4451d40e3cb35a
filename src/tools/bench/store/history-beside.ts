/**
 * A single history's reads cold and warm, on the archive and on MediaWiki
 * 1.39 beside it (mediawiki-baseline.ts), of the same random revisions.
 *
 * One page has one first read per Worker start, so here "cold" restarts
 * before every cold read: the Worker is stopped and started afresh on the
 * stored state (state-worker.ts: no Durable Object running, nothing in their
 * memory, no tier cache; the operating system's file cache is not dropped),
 * its own start-up (isolate, the codec's wasm) paid by one read of another
 * page (the one-revision page written after the history), then the sampled
 * revision is read, timed. On MediaWiki's side `php -S` is started afresh
 * before each cold read and its first answer paid by a read of the Main Page.
 * Warm: the same revisions read again on the running servers, in another
 * seeded order. The revisions are those the wiki holds; if it holds none (its
 * import stopped at the first), the archive's are read alone. Every body is checked by SHA-1 on both sides.
 *
 * @example
 * const reads = await coldWarmHistory(worker, page, warmup, mediawiki, { seed: 1, sample: 20 });
 */
import { mulberry32 } from "../../../lib/mulberry32.ts";
import { shuffle } from "../../../lib/sample.ts";
import type { RevisionRef } from "./importer.ts";
import {
  firstAnswer,
  matchRevisions,
  readRaw,
  type ArchivedPage,
  type MediaWikiRuns,
  type SampledRead,
} from "./mediawiki-baseline.ts";
import { readInTurn, readRevision } from "./reads.ts";
import type { ColdWarmReads } from "./side-by-side.ts";
import type { StateWorker } from "./state-worker.ts";

/** Revisions of a single history read cold and warm on each side, by default. */
export const COLD_READS = 20;

export async function coldWarmHistory(
  worker: StateWorker,
  page: ArchivedPage,
  warmup: { key: string; rev: RevisionRef },
  mediawiki: MediaWikiRuns | null,
  options: { seed: number; sample?: number; log?: (line: string) => void },
): Promise<ColdWarmReads> {
  const held = mediawiki === null ? [] : matchRevisions(page, mediawiki.ids);
  // When the wiki holds none of them (its import refused the first), the archive's are read alone.
  const candidates: SampledRead[] =
    held.length > 0 ? held : page.revisions.map((rev) => ({ key: page.key, rev, wiki: null }));
  const sample = shuffle(candidates, mulberry32(options.seed)).slice(0, options.sample ?? COLD_READS);
  const cold: number[] = [];
  const coldHops: Record<string, number>[] = [];
  const mediaWikiCold: number[] = [];
  let client = null;
  for (const s of sample) {
    await worker.stop();
    client = await worker.start();
    await readRevision(client, warmup.key, warmup.rev);
    const read = await readRevision(client, s.key, s.rev);
    cold.push(read.ms);
    coldHops.push(read.hops);
    if (mediawiki !== null && s.wiki !== null) {
      await mediawiki.wiki.restartServer();
      await firstAnswer(mediawiki.wiki);
      mediaWikiCold.push(await readRaw(mediawiki.wiki.url, s.wiki));
    }
  }
  options.log?.(`read ${sample.length} revisions cold, each after a restart, on each side`);
  const warmOrder = shuffle(sample, mulberry32(options.seed + 1));
  const { ms: warm, hops: warmHops } = client === null ? { ms: [], hops: [] } : await readInTurn(client, warmOrder);
  const mediaWikiWarm: number[] = [];
  if (mediawiki !== null)
    for (const s of warmOrder) if (s.wiki !== null) mediaWikiWarm.push(await readRaw(mediawiki.wiki.url, s.wiki));
  return { sample: sample.length, cold, warm, coldHops, warmHops, mediaWikiCold, mediaWikiWarm };
}
