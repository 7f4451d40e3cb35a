/**
 * The tiers bench's workload: a fixed catalogue of pages, their revision
 * texts, and a seeded plan of operations (reads and interleaved writes)
 * whose targets follow a Zipf law. The same seed gives the same plan in
 * every scenario, so scenarios differ only in the Worker's configuration.
 *
 * @example
 * const plan = planOps({ reads: 1000, writeEvery: 20, pages: 40, zipfS: 1.1, colos: ["SJC", "LHR"], seed: 1 });
 * plan[0]; // { kind: "read", page: 0, latest: true, revisionU: 0.42, colo: "LHR" }
 */
import type { NewRevision } from "../../../page/types.ts";
import { mulberry32 } from "../../../lib/mulberry32.ts";

/** A Zipf(s) law over ranks 0..n-1: P(k) ∝ 1 / (k + 1)^s. */
export class Zipf {
  readonly #cdf: Float64Array;

  constructor(n: number, s: number) {
    if (n < 1) throw new Error("Zipf over nothing");
    this.#cdf = new Float64Array(n);
    let sum = 0;
    for (let k = 0; k < n; k++) this.#cdf[k] = sum += 1 / (k + 1) ** s;
    for (let k = 0; k < n; k++) this.#cdf[k]! /= sum;
  }

  get size(): number {
    return this.#cdf.length;
  }

  /** The rank for a uniform u in [0, 1). */
  rank(u: number): number {
    let lo = 0;
    let hi = this.#cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#cdf[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** Zipf laws by size, for choosing among a page's revisions (the count grows during a run). */
export class ZipfFamily {
  readonly #laws = new Map<number, Zipf>();
  constructor(private readonly s: number) {}

  rank(n: number, u: number): number {
    let law = this.#laws.get(n);
    if (!law) this.#laws.set(n, (law = new Zipf(n, this.s)));
    return law.rank(u);
  }
}

export type Op =
  | {
      kind: "read";
      /** Page rank (0 = most popular). */
      page: number;
      /** `/page/{title}` when true, else `/page/{title}/{revid}`. */
      latest: boolean;
      /** Uniform draw turned into a newest-first Zipf rank over the page's revisions when the read runs. */
      revisionU: number;
      colo: string;
    }
  | { kind: "write"; page: number; colo: string };

export interface PlanOptions {
  /** Reads in the plan; writes come on top. */
  reads: number;
  /** One write per this many reads, on average. */
  writeEvery: number;
  pages: number;
  zipfS: number;
  /** Fraction of reads that ask for a page's latest revision. */
  latestShare?: number;
  colos: readonly string[];
  seed: number;
}

export function planOps(o: PlanOptions): Op[] {
  const rand = mulberry32(o.seed);
  const pages = new Zipf(o.pages, o.zipfS);
  const latestShare = o.latestShare ?? 0.5;
  const colo = () => o.colos[Math.floor(rand() * o.colos.length)]!;
  const ops: Op[] = [];
  let reads = 0;
  while (reads < o.reads) {
    if (rand() < 1 / (o.writeEvery + 1)) ops.push({ kind: "write", page: pages.rank(rand()), colo: colo() });
    else {
      ops.push({
        kind: "read",
        page: pages.rank(rand()),
        latest: rand() < latestShare,
        revisionU: rand(),
        colo: colo(),
      });
      reads++;
    }
  }
  return ops;
}

/** Page key (URL segment) of the catalogue page of rank `i`. */
export const catalogueKey = (i: number) => `Tiers_bench_${String(i).padStart(3, "0")}`;
/** Page key of the i-th page written in the purge burst. */
export const burstKey = (i: number) => `Tiers_burst_${String(i).padStart(4, "0")}`;

const WORDS =
  "archive revision tier purge region colo latency fanout queue pointer replay edge cache origin regional upper lower stale fresh write read page history".split(
    " ",
  );

/** Deterministic wikitext of about `bytes` bytes, different for every (page, revision). */
export function revisionText(page: string, revisionId: number, bytes = 2048): string {
  const rand = mulberry32(revisionId * 7919 + page.length);
  const parts = [`= ${page.replace(/_/g, " ")} =\n`, `Revision ${revisionId}.\n\n`];
  let length = parts[0]!.length + parts[1]!.length;
  while (length < bytes) {
    const line = `${Array.from({ length: 12 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ")}.\n`;
    parts.push(line);
    length += line.length;
  }
  return parts.join("");
}

/** One revision in the write API's shape, with about `bytes` bytes of text. */
export function newRevision(page: string, id: number, parentId: number | null, bytes = 2048): NewRevision {
  return {
    id,
    parentId,
    timestamp: new Date(Date.UTC(2020, 0, 1) + id * 1000).toISOString().replace(".000Z", "Z"),
    contributor: "tiers-bench",
    comment: `bench revision ${id}`,
    model: "wikitext",
    text: revisionText(page, id, bytes),
  };
}
