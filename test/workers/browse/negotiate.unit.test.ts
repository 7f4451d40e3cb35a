import { describe, expect, it } from "vitest";
import { negotiate } from "../../../src/browse/negotiate.ts";

const JSON_HTML = ["application/json", "text/html"] as const;

describe("Accept negotiation", () => {
  it.each([
    // Browsers' navigations.
    ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "text/html"],
    ["text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", "text/html"],
    // API clients: nothing, anything, JSON.
    [undefined, "application/json"],
    ["", "application/json"],
    ["*/*", "application/json"],
    ["application/json", "application/json"],
    // q-values decide, whatever the order.
    ["text/html;q=0.5, application/json", "application/json"],
    ["application/json;q=0.5, text/html", "text/html"],
    ["application/json;q=0.9, text/html;q=0.91", "text/html"],
    // The most specific range gives a type its q: */* at 1 does not lift text/html over its own 0.5.
    ["*/*, text/html;q=0.5", "application/json"],
    ["text/*, application/json;q=0.2", "text/html"],
    ["text/*;q=0.3, */*;q=0.4", "application/json"],
    // Refused outright.
    ["text/html;q=0, */*", "application/json"],
    ["image/png", null],
    ["application/json;q=0, text/html;q=0", null],
  ] as const)("%s → %s", (accept, expected) => {
    expect(negotiate(accept, JSON_HTML)).toBe(expected);
  });
});
