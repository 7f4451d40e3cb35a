/**
 * Holds back one page's purges at every target, so a test can act while no
 * tier has applied (and so no queue has recorded an acknowledgement of) a
 * write's purge. Everything runs in this test file's one workerd isolate, so
 * wrapping the classes' `applyPurges` catches every delivery: a queue's own
 * and its Fanouts', to TierCaches and to each colo's lower tier alike.
 * Deliveries of other pages pass straight through. Always `release()`.
 */
import { TierCache } from "../../../durable-objects/tier-cache.ts";
import { LowerTierPurges, type QueuedBatch } from "../../../src/purge/apply.ts";

export interface HeldPurges {
  /** Deliveries (each a batch of events for one target) held so far. */
  readonly held: number;
  /** Lets every held delivery, and any later one, through; restores the classes. */
  release(): void;
}

type Apply = (this: unknown, ...args: unknown[]) => unknown;

export function holdPurges(page: string): HeldPurges {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const state = { held: 0 };
  // TierCache.applyPurges(parts) and LowerTierPurges.applyPurges(parts, now): each queue's batch for one target.
  const targets: Array<{ proto: Record<string, unknown> }> = [
    { proto: TierCache.prototype as unknown as Record<string, unknown> },
    { proto: LowerTierPurges.prototype as unknown as Record<string, unknown> },
  ];
  const originals = targets.map(({ proto }) => {
    const original = proto.applyPurges as Apply;
    proto.applyPurges = async function (this: unknown, ...args: unknown[]) {
      const parts = args[0] as QueuedBatch[];
      if (parts.some(({ batch }) => batch.events.some((e) => e.page === page))) {
        state.held++;
        await gate;
      }
      return original.apply(this, args);
    };
    return original;
  });
  return {
    get held() {
      return state.held;
    },
    release() {
      targets.forEach(({ proto }, i) => (proto.applyPurges = originals[i]));
      open();
    },
  };
}
