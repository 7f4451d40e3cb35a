/**
 * The deployment's follower state (durable-objects/wiki-follower.ts over
 * src/follow/follower-store.ts) in real Durable Object SQLite: one pass at
 * a time holds the lease, only the holder moves the cursor, a lease that
 * ran out is taken over; and with no wiki configured the Cron Trigger does
 * nothing and `GET /api/follow` says so, to operators only.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { WikiFollower } from "../../../durable-objects/wiki-follower.ts";
import { wikiFollowerOf } from "../../../src/bindings.ts";
import { runCronPass } from "../../../src/follow/cron-pass.ts";
import { FollowerStore } from "../../../src/follow/follower-store.ts";
import { bearer, TOKENS } from "../support/tokens.ts";

const cursor = (timestamp: string) => ({ wiki: "https://wiki.example/w/api.php", timestamp, rcid: 7 });

describe("the wiki follower's lease and cursor", () => {
  it("lets one pass at a time hold the lease, and only the holder move the cursor", async () => {
    const stub = wikiFollowerOf(env, "https://wiki.example/w/api.php#lease");
    expect(await stub.acquire("pass-a", 60_000)).toBe(true);
    expect(await stub.acquire("pass-b", 60_000), "a second pass while the first runs").toBe(false);
    expect(await stub.save("pass-b", cursor("2026-01-01T00:00:00Z")), "a pass without the lease").toBe(false);
    expect(await stub.cursor()).toBeNull();
    expect(await stub.save("pass-a", cursor("2026-01-01T00:00:01Z"))).toBe(true);
    expect(await stub.cursor()).toEqual(cursor("2026-01-01T00:00:01Z"));
    expect((await stub.status()).running?.holder).toBe("pass-a");
    await stub.release("pass-a");
    expect((await stub.status()).running).toBeNull();
    expect(await stub.acquire("pass-b", 60_000)).toBe(true);
    await stub.release("pass-b");
  });

  it("takes over a lease that ran out; the pass that lost it can no longer move the cursor", async () => {
    const stub = wikiFollowerOf(env, "https://wiki.example/w/api.php#expiry");
    await runInDurableObject(stub, (_instance: WikiFollower, state) => {
      const store = new FollowerStore(state.storage);
      expect(store.acquire("old", 1_000, 500)).toBe(true);
      expect(store.acquire("new", 1_400, 500), "still held").toBe(false);
      expect(store.acquire("new", 1_500, 500), "ran out at 1,500").toBe(true);
      expect(store.save("old", cursor("2026-01-01T00:00:00Z"), 1_600)).toBe(false);
      expect(store.save("new", cursor("2026-01-01T00:00:02Z"), 1_600)).toBe(true);
      expect(store.cursor()?.timestamp).toBe("2026-01-01T00:00:02Z");
      store.recordPass({ startedMs: 1_500, finishedMs: 1_900, outcome: { ok: false, error: "the wiki answered 503" } });
      expect(store.lastPass()?.outcome).toEqual({ ok: false, error: "the wiki answered 503" });
    });
  });
});

describe("with no wiki configured", () => {
  it("the Cron Trigger does nothing", async () => {
    expect(env.FOLLOW_WIKI_API).toBe("");
    expect(await runCronPass(env)).toEqual({ kind: "off" });
  });

  it("GET /api/follow answers {wiki: null} to an operator, 401 to anyone else", async () => {
    const anonymous = await exports.default.fetch("http://palimpsest.test/api/follow");
    expect(anonymous.status).toBe(401);
    await anonymous.arrayBuffer();
    const res = await exports.default.fetch("http://palimpsest.test/api/follow", { headers: bearer(TOKENS.operator) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ wiki: null });
  });
});
