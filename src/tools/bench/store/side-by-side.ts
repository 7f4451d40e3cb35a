/**
 * The fields a `bench store` row reports of MediaWiki 1.39 beside the archive,
 * shared by the whole-wiki row (wiki.ts) and a single history's row (run.ts,
 * history-beside.ts), in the order both print them: importDump.php's runs and
 * databases against what the archive stored, then the reads cold and warm on
 * each side. What each field means is in run.ts's tables.
 *
 * @example
 * const fields = { ...mediaWikiImportFields(runs, { storedBytes, rawBytes, revisionsPerSecond }), ...readFields(reads) };
 */
import { percentile, round, sig4 } from "../harness/index.ts";
import { HOPS, type Hop } from "../../../http/server-timing.ts";
import type { MediaWikiRun } from "./mediawiki-baseline.ts";

export const MEDIAWIKI_IMPORT_KEYS = [
  "mediawiki_import_revisions",
  "mediawiki_import_raw_bytes",
  "mediawiki_import_completed",
  "mediawiki_import_error",
  "mediawiki_import_seconds",
  "mediawiki_import_revisions_per_s",
  "mediawiki_db_bytes",
  "mediawiki_db_import_bytes",
  "mediawiki_db_ratio",
  "mediawiki_compressed_import_revisions",
  "mediawiki_compressed_import_raw_bytes",
  "mediawiki_compressed_import_completed",
  "mediawiki_compressed_import_error",
  "mediawiki_compressed_import_seconds",
  "mediawiki_compressed_import_revisions_per_s",
  "mediawiki_compressed_db_bytes",
  "mediawiki_compressed_db_import_bytes",
  "mediawiki_compressed_db_ratio",
  "import_speed_ratio",
  "ratio_to_mediawiki_db",
  "ratio_to_mediawiki_compressed_db",
] as const;

/** The hops of an archive read the rows report, as its `Server-Timing` names them (src/http/server-timing.ts); the tiers are off, so never lower or tier. */
export const READ_HOPS = HOPS.filter((hop): hop is Exclude<Hop, "lower" | "tier"> => hop !== "lower" && hop !== "tier");
type HopKey = `read_${"cold" | "warm"}_${(typeof READ_HOPS)[number]}_ms_p50`;
export const READ_HOP_KEYS: readonly HopKey[] = (["cold", "warm"] as const).flatMap((phase) =>
  READ_HOPS.map((hop) => `read_${phase}_${hop}_ms_p50` as const),
);

export const COLD_WARM_READ_KEYS = [
  "read_sample",
  "read_cold_ms_p50",
  "read_cold_ms_p99",
  "read_warm_ms_p50",
  "read_warm_ms_p99",
  ...READ_HOP_KEYS,
  "mediawiki_read_cold_ms_p50",
  "mediawiki_read_cold_ms_p99",
  "mediawiki_read_warm_ms_p50",
  "mediawiki_read_warm_ms_p99",
] as const;

type Value = number | string | boolean | null;
export type MediaWikiImportFields = Record<(typeof MEDIAWIKI_IMPORT_KEYS)[number], Value>;
export type ColdWarmReadFields = Record<(typeof COLD_WARM_READ_KEYS)[number], number | null>;

/** `a / b` to 4 significant digits, or null when either is missing. */
export const ratioOf = (a: number | null, b: number | null) =>
  a === null || b === null || b === 0 ? null : sig4(a / b);

/** What the archive stored and how fast it took it in, to set beside the wiki's. */
export interface ArchiveFigures {
  storedBytes: number;
  rawBytes: number;
  revisionsPerSecond: number;
}

/** The mediawiki_* import fields (all null without MediaWiki) and the archive's ratios to them. */
export function mediaWikiImportFields(
  runs: { plain: MediaWikiRun; compressed: MediaWikiRun } | null,
  archive: ArchiveFigures,
): MediaWikiImportFields {
  const { storedBytes: stored, rawBytes: raw } = archive;
  const mw = (run: MediaWikiRun | undefined) => ({
    revisions: run?.revisions ?? null,
    raw: run?.rawBytes ?? null,
    completed: run?.completed ?? null,
    error: run?.error ?? null,
    seconds: run === undefined ? null : round(run.seconds, 2),
    rate: run === undefined ? null : sig4(run.revisions / run.seconds),
    db: run?.databaseBytes ?? null,
    growth: run?.importBytes ?? null,
    dbRatio: run === undefined ? null : ratioOf(run.importBytes, run.rawBytes),
    /** The archive's bytes per raw byte over the wiki's, each of what it holds. */
    versus: run === undefined || run.importBytes === 0 ? null : sig4(stored / raw / (run.importBytes / run.rawBytes)),
  });
  const plain = mw(runs?.plain);
  const compressed = mw(runs?.compressed);
  return {
    mediawiki_import_revisions: plain.revisions,
    mediawiki_import_raw_bytes: plain.raw,
    mediawiki_import_completed: plain.completed,
    mediawiki_import_error: plain.error,
    mediawiki_import_seconds: plain.seconds,
    mediawiki_import_revisions_per_s: plain.rate,
    mediawiki_db_bytes: plain.db,
    mediawiki_db_import_bytes: plain.growth,
    mediawiki_db_ratio: plain.dbRatio,
    mediawiki_compressed_import_revisions: compressed.revisions,
    mediawiki_compressed_import_raw_bytes: compressed.raw,
    mediawiki_compressed_import_completed: compressed.completed,
    mediawiki_compressed_import_error: compressed.error,
    mediawiki_compressed_import_seconds: compressed.seconds,
    mediawiki_compressed_import_revisions_per_s: compressed.rate,
    mediawiki_compressed_db_bytes: compressed.db,
    mediawiki_compressed_db_import_bytes: compressed.growth,
    mediawiki_compressed_db_ratio: compressed.dbRatio,
    import_speed_ratio: ratioOf(archive.revisionsPerSecond, plain.rate),
    ratio_to_mediawiki_db: plain.versus,
    ratio_to_mediawiki_compressed_db: compressed.versus,
  };
}

/** Timed reads of the same revisions on each side, cold then warm, in ms (MediaWiki's empty without it). */
export interface ColdWarmReads {
  sample: number;
  cold: readonly number[];
  warm: readonly number[];
  /** Each archive read's `Server-Timing`, ms per hop, in the order of `cold` and `warm`. */
  coldHops: readonly Record<string, number>[];
  warmHops: readonly Record<string, number>[];
  mediaWikiCold: readonly number[];
  mediaWikiWarm: readonly number[];
}

const ms = (values: readonly number[], p: number) => (values.length === 0 ? null : round(percentile(values, p), 3));

/** The median of each hop over the reads that met it; null for a hop no read met (encode, with no tier to keep a br body). */
function readHopFields(reads: ColdWarmReads): Record<HopKey, number | null> {
  const fields: Partial<Record<HopKey, number | null>> = {};
  for (const [phase, hops] of [
    ["cold", reads.coldHops],
    ["warm", reads.warmHops],
  ] as const)
    for (const hop of READ_HOPS)
      fields[`read_${phase}_${hop}_ms_p50`] = ms(
        hops.flatMap((h) => (h[hop] === undefined ? [] : [h[hop]])),
        50,
      );
  return fields as Record<HopKey, number | null>;
}

export function coldWarmReadFields(reads: ColdWarmReads): ColdWarmReadFields {
  return {
    read_sample: reads.sample,
    read_cold_ms_p50: ms(reads.cold, 50),
    read_cold_ms_p99: ms(reads.cold, 99),
    read_warm_ms_p50: ms(reads.warm, 50),
    read_warm_ms_p99: ms(reads.warm, 99),
    ...readHopFields(reads),
    mediawiki_read_cold_ms_p50: ms(reads.mediaWikiCold, 50),
    mediawiki_read_cold_ms_p99: ms(reads.mediaWikiCold, 99),
    mediawiki_read_warm_ms_p50: ms(reads.mediaWikiWarm, 50),
    mediawiki_read_warm_ms_p99: ms(reads.mediaWikiWarm, 99),
  };
}
