/**
 * The revision layout: which stored record holds each distinct content, and
 * which anchors each record needs as its dictionary. Pure arithmetic, no I/O.
 *
 * Distinct contents u = 0, 1, 2, ... (identical revisions share one u) are cut
 * into groups of `groupSize`. The first content of group k is anchor k.
 *
 * Anchors form aligned binary trees, like B-frames in video: anchor k sits
 * at level lowbit(k) and is encoded against its bracketing anchors
 * L = k - lowbit(k) and R = k + lowbit(k), both on higher levels, so reading
 * an anchor decodes at most two anchors per level. Until R exists, anchor k is
 * encoded against L alone and is re-encoded when R arrives. Anchor 0 stands alone.
 *
 * A tree is capped at `treeLevels` levels (pages made before the cap have one
 * tree over the whole history): anchors at multiples of 2^treeLevels are
 * tops, each encoded against the top before it, and every `chainTops`-th top
 * stands alone, so the anchors a read needs stay bounded however long the
 * history grows (sparse-revlog's bounded delta chains, for the same reason).
 *
 * A closed group's other contents are one solid stream whose dictionary is
 * anchor k then anchor k+1: edits that survive to the next anchor are copied
 * from it rather than stored twice. With a `decodeBudget` the stream is cut
 * into several (group-streams.ts), so that reading a member never decodes
 * more than the budget allows. The open group's contents (the tail) are
 * stored one per record against anchor k, until the group closes.
 *
 * A group is cut before the anchors its reads will need are all written.
 * With `boundedBrackets`, an anchor takes its right bracket only once every
 * read that would then decode it is checked against the anchors actually
 * written: over-budget anchors are stored alone and over-budget groups cut
 * again, or, if that costs more than the bracket saves, the bracket is left
 * out (layout-writer.ts). Readers follow each record's own `dict`, so which
 * brackets were taken is theirs to see, not to compute.
 */
export interface LayoutParams {
  /** Contents per group; the anchor is the first. */
  groupSize: number;
  /** brotli quality for anchors, groups and tails. */
  quality: number;
  /** brotli quality for records stored without a dictionary (anchor 0, chain starts). */
  keyframeQuality: number;
  /** brotli window, log2. */
  lgwin: number;
  /** Height of each anchor tree (absent: one tree over the whole history, as pages made before the cap). */
  treeLevels?: number;
  /** Tops per chain; the first of each chain is stored alone. */
  chainTops?: number;
  /** Most bytes a read may decode, as a multiple of the revision it returns (absent: one stream per group). */
  decodeBudget?: number;
  /**
   * With `decodeBudget`: an anchor takes its right bracket (or any dictionary) only when every
   * read that would decode it stays within the budget, judged on the anchors actually written,
   * and groups are cut assuming no further growth (absent: brackets are taken whenever they
   * exist, and groups are cut against an estimate of the page's growth).
   */
  boundedBrackets?: boolean;
}

/**
 * Quality 7 / window 22 stores within 0.5 % of quality 9 / window 24 on the
 * shared histories, at under half the heap (about 46 MiB against 100-150 MiB
 * for a 25 MiB group), which a Durable Object's 128 MB cannot spare.
 * Keyframes are compressed once and alone, so they get quality 8 (53-59 MiB;
 * quality 9 reaches 72 MiB on a 25 MiB revision). Trees of 2^5 anchors in
 * chains of 3 keep a read's anchors to at most a dozen at any length, for one
 * keyframe per 1,536 contents; 16 is the storage bound on a read's decoding
 * (LAYOUT-TRADEOFFS.md has the measurements).
 */
export const DEFAULT_LAYOUT: LayoutParams = {
  groupSize: 16,
  quality: 7,
  keyframeQuality: 8,
  lgwin: 22,
  treeLevels: 5,
  chainTops: 3,
  decodeBudget: 16,
  boundedBrackets: true,
};

/** The parameters that decide a page's anchor graph. */
export type TreeShape = Pick<LayoutParams, "treeLevels" | "chainTops">;

const lowbit = (k: number) => k & -k;

export const anchorId = (k: number) => `a${k}`;
export const groupId = (k: number) => `g${k}`;
export const tailId = (u: number) => `t${u}`;

/** Anchors per tree (a power of two), or Infinity for an uncapped page. */
const span = (shape: TreeShape) => (shape.treeLevels === undefined ? Infinity : 2 ** shape.treeLevels);

export function isTop(k: number, shape: TreeShape): boolean {
  return k % span(shape) === 0;
}

/** The anchors anchor k is encoded against, when `anchorCount` anchors exist. */
export function anchorDeps(k: number, anchorCount: number, shape: TreeShape = {}): number[] {
  if (k === 0) return [];
  const s = span(shape);
  if (k % s === 0) return (k / s) % (shape.chainTops ?? 1) === 0 ? [] : [k - s];
  const step = lowbit(k);
  const right = k + step;
  return right < anchorCount ? [k - step, right] : [k - step];
}

/** Anchors whose encoding changes when anchor `k` is added (their right bracket is k). */
export function anchorsRebracketedBy(k: number, shape: TreeShape = {}): number[] {
  const out: number[] = [];
  const limit = Math.min(lowbit(k), span(shape));
  // k - step has lowbit `step` exactly when step < lowbit(k), so its R is k; tops are never rebracketed.
  for (let step = 1; step < limit; step <<= 1) if (k - step > 0) out.push(k - step);
  return out;
}

/** Every anchor needed to decode anchor k (k included), in an order where dependencies come first. */
export function anchorClosure(k: number, anchorCount: number, shape: TreeShape = {}): number[] {
  const seen = new Set<number>();
  const order: number[] = [];
  const visit = (a: number) => {
    if (seen.has(a)) return;
    seen.add(a);
    for (const d of anchorDeps(a, anchorCount, shape)) visit(d);
    order.push(a);
  };
  visit(k);
  return order;
}

/**
 * The anchors a record depending on `anchors` will need once its tree is
 * complete: later anchors only ever add right brackets, up to the next top,
 * so this is what a read of it decodes for the rest of the page's life.
 * Only for capped pages (an uncapped tree keeps growing).
 */
export function finalClosure(anchors: readonly number[], shape: TreeShape): number[] {
  const s = span(shape);
  if (!Number.isFinite(s)) throw new Error("an uncapped anchor tree has no final closure");
  const seen = new Set<number>();
  for (const a of anchors) {
    const complete = (Math.floor(a / s) + 1) * s + 1;
    for (const d of anchorClosure(a, complete, shape)) seen.add(d);
  }
  return [...seen].sort((x, y) => x - y);
}

export type Placement =
  | { kind: "anchor"; anchor: number }
  | { kind: "group"; group: number; index: number }
  | { kind: "tail"; group: number };

/** Where content u lives, given how many distinct contents exist. */
export function placementOf(u: number, contentCount: number, groupSize: number): Placement {
  const group = Math.floor(u / groupSize);
  if (u % groupSize === 0) return { kind: "anchor", anchor: group };
  const closed = (group + 1) * groupSize < contentCount;
  return closed ? { kind: "group", group, index: (u % groupSize) - 1 } : { kind: "tail", group };
}

/** Dictionary anchors for a group stream or a tail record of group k. */
export function groupDeps(group: number, anchorCount: number): number[] {
  return group + 1 < anchorCount ? [group, group + 1] : [group];
}

/** Which table names the blob holding a record: the page's anchors blob, a closed group's, or a tail's. */
export type RecordHolder = { kind: "anchors" } | { kind: "group"; group: number } | { kind: "tail"; u: number };

/** The record holding content u, its index among the record's parts, and where its blob is named. */
export function recordOf(
  u: number,
  contentCount: number,
  groupSize: number,
): { record: string; part: number; holder: RecordHolder } {
  const place = placementOf(u, contentCount, groupSize);
  if (place.kind === "anchor") return { record: anchorId(place.anchor), part: 0, holder: { kind: "anchors" } };
  if (place.kind === "group")
    return { record: groupId(place.group), part: place.index, holder: { kind: "group", group: place.group } };
  return { record: tailId(u), part: 0, holder: { kind: "tail", u } };
}
