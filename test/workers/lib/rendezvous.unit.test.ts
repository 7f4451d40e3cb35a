import { describe, expect, it } from "vitest";
import { rendezvousPick } from "../../../src/lib/rendezvous.ts";

const keys = Array.from({ length: 20_000 }, (_, i) => `/page/P${i}/${i * 7}`);

describe("weighted rendezvous hashing", () => {
  it("moves only the lost member's keys when a member leaves the pool", () => {
    const pool = ["a", "b", "c", "d"].map((id) => ({ id, weight: 1 }));
    const before = keys.map((k) => rendezvousPick(pool, k).id);
    const after = keys.map(
      (k) =>
        rendezvousPick(
          pool.filter((m) => m.id !== "c"),
          k,
        ).id,
    );
    let moved = 0;
    keys.forEach((_, i) => {
      if (before[i] !== after[i]) {
        moved++;
        expect(before[i]).toBe("c");
      }
    });
    expect(moved).toBe(before.filter((m) => m === "c").length);
  });

  it("spreads keys in proportion to weight", () => {
    const pool = [
      { id: "small", weight: 1 },
      { id: "big", weight: 2 },
      { id: "other", weight: 1 },
    ];
    const counts = new Map<string, number>();
    for (const k of keys) counts.set(rendezvousPick(pool, k).id, (counts.get(rendezvousPick(pool, k).id) ?? 0) + 1);
    expect(counts.get("big")! / keys.length).toBeCloseTo(0.5, 1);
    expect(counts.get("small")! / keys.length).toBeCloseTo(0.25, 1);
  });
});
