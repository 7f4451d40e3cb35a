import { describe, expect, it } from "vitest";
import { SingleFlight } from "../../../src/lib/single-flight.ts";

/** Pieces of work the test settles by hand, in the order they were started. */
function work() {
  const started: Array<{ resolve: (v: string) => void; reject: (e: unknown) => void }> = [];
  const start = () => new Promise<string>((resolve, reject) => started.push({ resolve, reject }));
  return { started, start };
}

describe("SingleFlight", () => {
  it("shares one piece of work among concurrent asks for a key, keeps keys apart, and starts afresh once it settles", async () => {
    const flights = new SingleFlight<string, string>();
    const { started, start } = work();
    const asks = [flights.run("k", start), flights.run("k", start), flights.run("other", start)];
    expect(started).toHaveLength(2);
    expect(flights.has("k")).toBe(true);
    started[0]!.resolve("first");
    started[1]!.resolve("other's");
    expect(await Promise.all(asks)).toEqual(["first", "first", "other's"]);
    expect(flights.has("k")).toBe(false);
    const again = flights.run("k", start);
    expect(started).toHaveLength(3);
    started[2]!.resolve("second");
    expect(await again).toBe("second");
  });

  it("gives every joined ask the failure, and does not keep it", async () => {
    const flights = new SingleFlight<string, string>();
    const { started, start } = work();
    const asks = [flights.run("k", start), flights.run("k", start)];
    started[0]!.reject(new Error("below is down"));
    for (const ask of asks) await expect(ask).rejects.toThrow("below is down");
    expect(flights.has("k")).toBe(false);
    const again = flights.run("k", start);
    expect(started).toHaveLength(2);
    started[1]!.resolve("recovered");
    expect(await again).toBe("recovered");
  });
});
