/**
 * Where a closed group's stream is cut so that reading any member decodes
 * at most `budget` times that member's own size (layout.ts, decodeBudget).
 *
 * Reading member i of a stream decodes the anchors its dictionary needs
 * (`anchorBytes`, unless the stream does without them), the members before
 * it in the same stream, and itself. Members join the current stream while
 * that stays within budget; a member that would not starts a new stream, and
 * one so small that even its anchors exceed the budget goes into a stream
 * without a dictionary, as a keyframe does. One stream per group costs the
 * fewest bytes, so cuts happen only where the budget demands them.
 *
 * The anchors' bytes are an estimate when some are not written yet: cuts
 * plan with the cautious `anchorBytes`, but a member goes without the
 * dictionary only when even `knownAnchorBytes` (the anchors written so far)
 * exceed its budget, because a stream without one costs many times the
 * bytes, where an extra cut costs a few.
 *
 * @example
 * planStreams([30_000, 31_000, 200], 150_000, 16) // [{ parts: 2, plain: false }, { parts: 1, plain: true }]
 */
import type { StreamCut } from "./record-codec.ts";

export function planStreams(
  memberSizes: readonly number[],
  anchorBytes: number,
  budget: number,
  knownAnchorBytes = anchorBytes,
): StreamCut[] {
  const cuts: StreamCut[] = [];
  let current: StreamCut | null = null;
  let prefix = 0;
  const allowed = (size: number) => budget * Math.max(size, 1);
  for (const size of memberSizes) {
    // Only members that must go without the dictionary share a stream without one.
    const plain = knownAnchorBytes + size > allowed(size);
    if (current && current.plain === plain && (plain ? 0 : anchorBytes) + prefix + size <= allowed(size)) {
      current.parts++;
      prefix += size;
      continue;
    }
    current = { parts: 1, plain };
    cuts.push(current);
    prefix = size;
  }
  return cuts;
}

/**
 * The most anchor bytes a read of a group cut as `cut` may decode: the
 * least, over the members read with the dictionary, of the budget less the
 * stream up to and including the member. Infinity when none needs them.
 *
 * @example
 * roomLeft([100, 100], [{ parts: 2, plain: false }], 16) // 1_400
 */
export function roomLeft(memberSizes: readonly number[], cut: readonly StreamCut[], budget: number): number {
  let room = Infinity;
  let first = 0;
  for (const c of cut) {
    let prefix = 0;
    for (const size of memberSizes.slice(first, first + c.parts)) {
      prefix += size;
      if (!c.plain) room = Math.min(room, budget * Math.max(1, size) - prefix);
    }
    first += c.parts;
  }
  return room;
}
