import { describe, expect, it } from "vitest";
import { decide, type DecideInput, type QueueSample } from "../../../src/purge/pool/decide.ts";

const band = { min: 2, max: 4, lowEventsPerSecond: 2, highEventsPerSecond: 20, maxBacklog: 500 };
const q = (i: number, eventsPerSecond: number, backlog = 0): QueueSample => ({
  queue: `weur-q${i}`,
  eventsPerSecond,
  backlog,
});
const input = (size: number, loads: QueueSample[], more: Partial<DecideInput> = {}): DecideInput => ({
  size,
  band,
  loads,
  unreachable: [],
  now: 1_000_000,
  lastChangeAt: null,
  cooldownMs: 30_000,
  ...more,
});

describe("the autoscaler's decision", () => {
  it("grows by one queue when a queue's rate crosses the band's top, and names it", () => {
    const d = decide(input(2, [q(0, 25), q(1, 3)]));
    expect(d).toMatchObject({ action: "grow", from: 2, to: 3 });
    expect(d.reason).toContain("weur-q0 at 25 events/s > 20");
  });

  it("holds at exactly the top of the band", () => {
    expect(decide(input(2, [q(0, 20), q(1, 20, 500)])).action).toBe("hold");
  });

  it("grows when a queue's backlog passes maxBacklog even at a low rate", () => {
    const d = decide(input(3, [q(0, 1), q(1, 1, 501), q(2, 1)]));
    expect(d).toMatchObject({ action: "grow", to: 4 });
    expect(d.reason).toContain("weur-q1 backlog 501 > 500");
  });

  it("never grows past max, and says so", () => {
    const d = decide(input(4, [q(0, 90), q(1, 90), q(2, 90), q(3, 90)]));
    expect(d).toMatchObject({ action: "hold", to: 4 });
    expect(d.reason).toMatch(/at max 4/);
  });

  it("shrinks by one queue when every queue is under the band's bottom", () => {
    const d = decide(input(4, [q(0, 1.9), q(1, 0), q(2, 0.5), q(3, 1)]));
    expect(d).toMatchObject({ action: "shrink", from: 4, to: 3 });
  });

  it("does not shrink while one queue is at the band's bottom or above", () => {
    expect(decide(input(4, [q(0, 2), q(1, 0), q(2, 0), q(3, 0)])).action).toBe("hold");
  });

  it("does not shrink while a queue holds more than half of maxBacklog", () => {
    expect(decide(input(3, [q(0, 0, 251), q(1, 0), q(2, 0)])).action).toBe("hold");
    expect(decide(input(3, [q(0, 0, 250), q(1, 0), q(2, 0)])).action).toBe("shrink");
  });

  it("does not shrink if one queue fewer would be over the band at the present rate", () => {
    const wide = { ...band, lowEventsPerSecond: 15, highEventsPerSecond: 20 };
    // 3 × 14 = 42 events/s over 2 queues is 21 each: the shrink would be undone at once.
    expect(decide(input(3, [q(0, 14), q(1, 14), q(2, 14)], { band: wide })).action).toBe("hold");
    expect(decide(input(3, [q(0, 12), q(1, 12), q(2, 12)], { band: wide })).action).toBe("shrink");
  });

  it("never shrinks below min", () => {
    expect(decide(input(2, [q(0, 0), q(1, 0)]))).toMatchObject({ action: "hold", to: 2 });
  });

  it("waits out the cooldown after a resize, then acts", () => {
    const loads = [q(0, 50), q(1, 50), q(2, 50)];
    const cooling = decide(input(3, loads, { lastChangeAt: 1_000_000 - 29_999 }));
    expect(cooling).toMatchObject({ action: "hold", to: 3 });
    expect(cooling.reason).toMatch(/cooling down/);
    expect(decide(input(3, loads, { lastChangeAt: 1_000_000 - 30_000 })).action).toBe("grow");
  });

  it("judges nothing when an active queue did not report", () => {
    const d = decide(input(3, [q(0, 90), q(2, 90)], { unreachable: ["weur-q1"] }));
    expect(d).toMatchObject({ action: "hold", to: 3 });
    expect(d.reason).toContain("weur-q1");
  });

  it("goes straight back inside min..max after the configuration changed, cooldown or not", () => {
    expect(decide(input(7, [], { lastChangeAt: 1_000_000 }))).toMatchObject({ action: "shrink", from: 7, to: 4 });
    expect(decide(input(1, [q(0, 0)], { lastChangeAt: 1_000_000 }))).toMatchObject({ action: "grow", from: 1, to: 2 });
  });
});
