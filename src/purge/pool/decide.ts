/**
 * The autoscaler's judgement, on its own: given the load each queue of a
 * region's active pool reported, whether the pool grows by one queue, shrinks
 * by one, or holds. Pure, so every rule is tested without a Durable Object.
 *
 * - Grow when any active queue is over the band (events/s above
 *   `highEventsPerSecond`, or more than `maxBacklog` events not yet
 *   acknowledged by every tier): a new queue takes about 1/(n+1) of the
 *   region's pages from every queue, the busiest included.
 * - Shrink when every active queue is under `lowEventsPerSecond`, with at most
 *   half of `maxBacklog` pending, and the region's rate spread over one queue
 *   fewer stays under `highEventsPerSecond`: the gap between the two rules is
 *   the hysteresis that keeps the pool from flapping.
 * - After a resize, hold for `cooldownMs`: the queues' rates are measured over
 *   a window, and until it has passed they still show the old pool's load.
 * - A pool outside min..max (the configuration changed) goes straight to the
 *   nearest bound: above max its queues could issue purge ids nobody parses.
 */
import type { QueuePoolConfig } from "../../config/topology.ts";

export type PoolBand = Omit<QueuePoolConfig, "sampleIntervalMs">;

/** What the decision reads of one queue's load report. */
export interface QueueSample {
  queue: string;
  eventsPerSecond: number;
  backlog: number;
}

export interface DecideInput {
  size: number;
  band: PoolBand;
  /** One per active queue (the first `size` of the pool) that answered. */
  loads: QueueSample[];
  /** Active queues that did not answer: no resize is judged on part of the pool. */
  unreachable: string[];
  now: number;
  lastChangeAt: number | null;
  cooldownMs: number;
}

export interface Decision {
  action: "grow" | "shrink" | "hold";
  from: number;
  to: number;
  reason: string;
}

const rate = (n: number) => `${Math.round(n * 100) / 100} events/s`;

export function decide(input: DecideInput): Decision {
  const { size, band, loads, now, lastChangeAt, cooldownMs } = input;
  const change = (to: number, reason: string): Decision => ({
    action: to > size ? "grow" : to < size ? "shrink" : "hold",
    from: size,
    to,
    reason,
  });
  if (size > band.max) return change(band.max, `pool of ${size} is above the configured max ${band.max}`);
  if (size < band.min) return change(band.min, `pool of ${size} is below the configured min ${band.min}`);
  if (input.unreachable.length > 0) return change(size, `no load report from ${input.unreachable.join(", ")}`);
  if (lastChangeAt !== null && now - lastChangeAt < cooldownMs)
    return change(
      size,
      `cooling down ${Math.ceil((cooldownMs - (now - lastChangeAt)) / 1000)} s after the last resize`,
    );

  const over = loads.flatMap((l) => [
    ...(l.eventsPerSecond > band.highEventsPerSecond
      ? [`${l.queue} at ${rate(l.eventsPerSecond)} > ${band.highEventsPerSecond}`]
      : []),
    ...(l.backlog > band.maxBacklog ? [`${l.queue} backlog ${l.backlog} > ${band.maxBacklog}`] : []),
  ]);
  if (over.length > 0) {
    return size < band.max
      ? change(size + 1, `over the band: ${over.join("; ")}`)
      : change(size, `at max ${band.max}, over the band: ${over.join("; ")}`);
  }

  const total = loads.reduce((sum, l) => sum + l.eventsPerSecond, 0);
  const busiest = Math.max(0, ...loads.map((l) => l.eventsPerSecond));
  const deepest = Math.max(0, ...loads.map((l) => l.backlog));
  if (
    size > band.min &&
    busiest < band.lowEventsPerSecond &&
    deepest <= band.maxBacklog / 2 &&
    total / (size - 1) < band.highEventsPerSecond
  ) {
    return change(
      size - 1,
      `under the band: every queue below ${band.lowEventsPerSecond} events/s (busiest ${rate(busiest)}), deepest backlog ${deepest}`,
    );
  }
  return change(size, `inside the band (busiest ${rate(busiest)}, deepest backlog ${deepest})`);
}
