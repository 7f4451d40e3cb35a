/**
 * Where a read's time went, hop by hop, as a `Server-Timing` header
 * (W3C Server Timing): one metric per hop, its milliseconds summed over the
 * read. A debug header like `x-read-cost`: development and token holders see
 * it, anonymous readers never (workers/middleware/deployment-guard.ts).
 *
 * The hops, in the order a read meets them:
 *
 * | metric | what it times |
 * | --- | --- |
 * | lower | this colo's Cache API lookup |
 * | tier | the regional and upper TierCaches: their round trips, less the origin's time inside them |
 * | origin | the whole origin render, wherever it ran (the upper tier, or the edge) |
 * | directory | the PageDirectory's answer whether the page exists (0 when this isolate already knew) |
 * | locate | the PageStore shard's round trip for where the revision lives: a shard that was not running starts here |
 * | do | the part of `locate` outside the shard's query: the Durable Object's start and the RPC itself |
 * | blob | fetching and parsing the blobs the read needs (0 when the isolate holds them parsed) |
 * | decode | decoding the record (brotli, the anchors it is coded against) |
 * | hash | the SHA-256 check of the decoded bytes |
 * | encode | making the revision's br body the tiers keep |
 *
 * In production a Worker's clock moves only across I/O, so the CPU-bound
 * hops (decode, hash, encode) read 0 there; `palimpsest dev` and the benches
 * see them. A read that joined a fill already in flight for the same key (a
 * tier coalesces them) reports that fill's origin hops, not a render of its own.
 *
 * @example
 * const timer = new HopTimer();
 * const found = await timer.time("locate", () => store.locate(selector));
 * serverTiming(timer.timings); // "locate;dur=1.73"
 */

export const HOPS = [
  "lower",
  "tier",
  "origin",
  "directory",
  "locate",
  "do",
  "blob",
  "decode",
  "hash",
  "encode",
] as const;
export type Hop = (typeof HOPS)[number];

/** Milliseconds per hop; a hop the read did not meet is absent. Structured-clonable, so it crosses RPC. */
export type HopTimings = Partial<Record<Hop, number>>;

/** Collects one read's hop timings. */
export class HopTimer {
  readonly timings: HopTimings = {};

  add(hop: Hop, ms: number): void {
    this.timings[hop] = (this.timings[hop] ?? 0) + ms;
  }

  /** Adds what another hop measured (a tier below, the blob reader). */
  merge(timings: HopTimings | undefined): void {
    if (!timings) return;
    for (const hop of HOPS) if (timings[hop] !== undefined) this.add(hop, timings[hop]);
  }

  async time<T>(hop: Hop, run: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await run();
    } finally {
      this.add(hop, performance.now() - start);
    }
  }

  timeSync<T>(hop: Hop, run: () => T): T {
    const start = performance.now();
    try {
      return run();
    } finally {
      this.add(hop, performance.now() - start);
    }
  }
}

/** The header's value: `lower;dur=0.12, tier;dur=3.4, ...` in hop order, or null when nothing was timed. */
export function serverTiming(timings: HopTimings | undefined): string | null {
  if (!timings) return null;
  const parts = HOPS.filter((hop) => timings[hop] !== undefined).map(
    (hop) => `${hop};dur=${Math.max(0, timings[hop]!).toFixed(2)}`,
  );
  return parts.length === 0 ? null : parts.join(", ");
}

/** Parses a `Server-Timing` value into milliseconds per metric (unknown metrics kept; no `dur` is 0). */
export function parseServerTiming(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const metric of (header ?? "").split(",")) {
    const [name, ...params] = metric.split(";").map((s) => s.trim());
    if (!name) continue;
    const dur = params.find((p) => p.startsWith("dur="));
    out[name] = dur === undefined ? 0 : Number(dur.slice(4));
  }
  return out;
}
