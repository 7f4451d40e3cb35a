/**
 * The anonymous export limit is counted by a Workers rate-limit binding,
 * whose allowance lives in wrangler.toml, while the code and the 429 name
 * `export.anonymousPerMinute` from src/limits.ts: the two must say the same,
 * and the binding's period must be the one src/http/export-rate.ts tells
 * refused clients to wait out.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { EXPORT_RATE_PERIOD_SECONDS } from "../../../src/http/export-rate.ts";
import { LIMITS } from "../../../src/limits.ts";

const WRANGLER = readFileSync(resolve(import.meta.dirname, "../../../wrangler.toml"), "utf8");

/** The `[[ratelimits]]` table named `name`: its `simple = { limit, period }`. */
function rateLimit(name: string): { limit: number; period: number } | null {
  for (const table of WRANGLER.split(/^\[\[ratelimits\]\]\s*$/m).slice(1)) {
    const body = table.split(/^\[/m, 1)[0]!;
    if (!new RegExp(`^name\\s*=\\s*"${name}"\\s*$`, "m").test(body)) continue;
    const simple = /^simple\s*=\s*\{\s*limit\s*=\s*(\d+)\s*,\s*period\s*=\s*(\d+)\s*\}\s*$/m.exec(body);
    return simple ? { limit: Number(simple[1]), period: Number(simple[2]) } : null;
  }
  return null;
}

describe("EXPORT_RATE in wrangler.toml", () => {
  it("allows export.anonymousPerMinute a period, the period export-rate.ts names", () => {
    expect(rateLimit("EXPORT_RATE")).toEqual({
      limit: LIMITS.export.anonymousPerMinute,
      period: EXPORT_RATE_PERIOD_SECONDS,
    });
    expect(EXPORT_RATE_PERIOD_SECONDS).toBe(60);
  });
});
