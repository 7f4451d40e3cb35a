/**
 * Delivery planning: which events a target still needs, and where a flush
 * starts. A queue plans a batch from its log for the laggiest pointer it
 * delivers to; the queue (direct delivery) and each region's Fanout then
 * take from it what each target lacks.
 */
import type { QueueSelf } from "../bindings.ts";
import type { Region } from "../config/topology.ts";
import type { PurgeEvent } from "./events.ts";
import type { PurgeTarget } from "./targets.ts";

export interface PurgeBatch {
  events: PurgeEvent[];
  /** The target fell behind the retained log: it drops everything and resumes after this sequence. */
  flushUpTo?: number;
}

/** What a queue hands a region's Fanout: a batch for that region's lagging targets, each with its pointer. */
export interface FanoutBatch extends PurgeBatch {
  queue: QueueSelf;
  region: Region;
  targets: Array<{ target: string; tier: PurgeTarget; acked: number }>;
}

/** Where a batch for a pointer at `acked` starts, given the oldest sequence the log still holds. */
export function batchStart(acked: number, oldestRetained: number): { after: number; flushUpTo?: number } {
  const retainedFrom = oldestRetained - 1;
  // The target missed events no longer in the log: it must flush rather than guess.
  return acked < retainedFrom ? { after: retainedFrom, flushUpTo: retainedFrom } : { after: acked };
}

/** The part of a batch a target whose pointer is at `acked` still needs. */
export function neededBy(acked: number, batch: PurgeBatch): PurgeBatch {
  const events = batch.events.filter((e) => e.seq > acked);
  return batch.flushUpTo !== undefined && acked < batch.flushUpTo ? { events, flushUpTo: batch.flushUpTo } : { events };
}
