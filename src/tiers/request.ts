/** What one tier asks the next for, and what comes back. */
import type { Answer, OriginQuery } from "../origin/answer.ts";
import type { Companion } from "../origin/latest-and-index.ts";
import type { CacheKey } from "./cache-key.ts";
import type { HopTimings } from "../http/server-timing.ts";

/** Which hop answered, for the debug headers and the counters. */
export type TierName = "lower" | "regional" | "upper" | "origin";

export interface TierRequest extends CacheKey {
  query: OriginQuery;
  /** Refuse anything older than this page version: the asker's floor. */
  minVersion: number;
  /** Region of the data centre asking, for simulated link latency. */
  fromRegion: string;
}

export interface TierRead {
  entry: Answer;
  servedBy: TierName;
  /** Where this read's time went below the asker (src/http/server-timing.ts); never kept with the entry. */
  timings?: HopTimings;
  /**
   * What the origin rendered beside `entry` in the fill that brought it (src/origin/latest-and-index.ts), for each tier
   * it passes to keep too.
   */
  also?: Companion[];
}
