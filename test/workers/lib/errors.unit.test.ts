import { describe, expect, it } from "vitest";
import { errorMessage } from "../../../src/lib/errors.ts";

describe("errorMessage", () => {
  it("gives an Error's message, without its name", () => {
    expect(errorMessage(new TypeError("bad input"))).toBe("bad input");
  });

  it("gives the message of an error-like object that is no Error instance", () => {
    expect(errorMessage({ name: "RemoteError", message: "the queue is gone" })).toBe("the queue is gone");
  });

  it("turns anything else into a string", () => {
    expect(errorMessage("plain text")).toBe("plain text");
    expect(errorMessage(42)).toBe("42");
    expect(errorMessage(null)).toBe("null");
    expect(errorMessage(undefined)).toBe("undefined");
    expect(errorMessage({ message: 7 })).toBe("[object Object]");
  });
});
