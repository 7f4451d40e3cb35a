/**
 * Runs in its own workerd with `ORPHAN_GRACE_SECONDS = 1` (vitest.config.ts,
 * project `workers-short-grace`), as an operator would set it in [vars].
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { pageStoreOf } from "../../../src/bindings.ts";
import { settingsOf } from "../../../src/config/settings.ts";
import { TOKEN, appendOk, linearHistory, request } from "../support/archive.ts";

describe("ORPHAN_GRACE_SECONDS", () => {
  it("is read from [vars]", () => {
    expect(settingsOf(env).orphanGraceMs).toBe(1000);
  });

  it("collects a deleted page's blobs once that many seconds have passed, on the alarm alone", async () => {
    const key = "Short_grace_page";
    await appendOk(key, linearHistory(20));
    const stats = await pageStoreOf(env, key).stats();
    expect(stats.blobs).toBeGreaterThan(0);
    const keys = (await env.BLOBS.list({ prefix: "blob/" })).keys.map((k) => k.name);
    const before = keys.length;
    expect(
      (
        await request(`/api/pages/${key}?reason=a%20test%20deletion`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${TOKEN}` },
        })
      ).status,
    ).toBe(200);
    const deadline = Date.now() + 15_000;
    let after = before;
    while (Date.now() < deadline) {
      after = (await env.BLOBS.list({ prefix: "blob/" })).keys.length;
      if (after <= before - stats.blobs) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(after).toBe(before - stats.blobs);
  });

  it("rejects a value that is not a whole number of seconds, naming the var", () => {
    expect(() => settingsOf({ ...env, ORPHAN_GRACE_SECONDS: "ten" } as unknown as Env)).toThrow(/ORPHAN_GRACE_SECONDS/);
  });
});
