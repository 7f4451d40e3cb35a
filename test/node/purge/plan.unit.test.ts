import { describe, expect, it } from "vitest";
import type { PurgeEvent } from "../../../src/purge/events.ts";
import { batchStart, neededBy } from "../../../src/purge/plan.ts";
import { loggedEvent } from "../../workers/purge/support/logged-event.ts";

const event = (seq: number): PurgeEvent =>
  loggedEvent({ page: "P", scope: { kind: "mutable" }, version: seq, region: "weur" }, seq);

describe("purge delivery planning", () => {
  it("resumes a target right after its pointer while the log still holds what follows", () => {
    expect(batchStart(5, 3)).toEqual({ after: 5 });
    expect(batchStart(2, 3)).toEqual({ after: 2 });
  });

  it("makes a target that fell behind the retained log flush, then resume at the log's start", () => {
    expect(batchStart(1, 10)).toEqual({ after: 9, flushUpTo: 9 });
  });

  it("gives each target of a shared batch only the events after its own pointer, and the flush only if it is behind it", () => {
    const batch = { events: [10, 11, 12, 13].map(event), flushUpTo: 9 };
    expect(neededBy(4, batch)).toEqual(batch);
    expect(neededBy(11, batch)).toEqual({ events: [event(12), event(13)] });
    expect(neededBy(13, batch)).toEqual({ events: [] });
  });
});
