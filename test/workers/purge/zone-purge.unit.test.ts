import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { settingsOf } from "../../../src/config/settings.ts";
import type { OperatorPurgeRequest, PageScope, PurgeEvent } from "../../../src/purge/events.ts";
import { applyAt } from "../../../src/purge/apply.ts";
import { lowerTargets, purgeTargets } from "../../../src/purge/targets.ts";
import { ZonePurgeNotConfigured, zonePurge, zonePurgeBodies } from "../../../src/purge/zone-purge.ts";
import { loggedEvent } from "./support/logged-event.ts";

const production = (vars: Record<string, string> = {}) =>
  ({ ...env, ENVIRONMENT: "production", ...vars }) as unknown as Env;
const event = (page: string, scope: PageScope, seq: number): PurgeEvent =>
  loggedEvent({ page, scope, version: seq, region: "enam" }, seq);
const op = (scope: OperatorPurgeRequest["scope"], seq = 1): PurgeEvent =>
  loggedEvent(
    {
      page: null,
      scope,
      version: 0,
      region: "enam",
      mark: { at: 1, soft: false },
      operator: { by: "test", kind: scope.kind === "keys" ? "files" : scope.kind },
    },
    seq,
  );

describe("production lower tier: Cloudflare's purge API", () => {
  it("has one lower-tier target for every data centre, not one per simulated colo", () => {
    expect(lowerTargets(production())).toEqual([{ level: "lower", region: "enam", member: "zone" }]);
    expect(purgeTargets(production()).filter((t) => t.level === "lower")).toHaveLength(1);
    expect(lowerTargets(env).length).toBe(37);
  });

  it("purges deletions by page tag, suppressions by revision URL, its dcb variants' tag and the mutable tag, writes by the mutable tag, everything as the archive's own prefix", () => {
    const origin = "https://archive.example";
    expect(
      zonePurgeBodies(
        [
          event("A/b", { kind: "revisions", revisions: [7] }, 1),
          event("C", { kind: "mutable" }, 2),
          event("Help:D", { kind: "page" }, 3),
        ],
        origin,
      ),
    ).toEqual([
      { tags: ["mutable:A%2Fb", "variants:/page/A%2Fb/7", "mutable:C", "page:Help:D"] },
      { files: ["https://archive.example/__tier/page/A%2Fb/7"] },
    ]);
    // Never purge_everything: the zone may serve more than the archive.
    expect(zonePurgeBodies([event("C", { kind: "page" }, 3), op({ kind: "everything" }, 4)], origin)).toEqual([
      { prefixes: ["archive.example/__tier"] },
    ]);
    const many = Array.from({ length: 65 }, (_, i) => event(`P${i}`, { kind: "page" }, i + 1));
    expect(zonePurgeBodies(many, origin).map((b) => (b.tags as string[]).length)).toEqual([30, 30, 5]);
  });

  it("passes operators' purges on in Cloudflare's own terms: URLs of the lower tier's keys (and a revision's dcb variants' tag), tags as given, prefixes under the archive's", () => {
    const origin = "https://archive.example";
    expect(
      zonePurgeBodies(
        [
          op({ kind: "keys", keys: ["/page/A/1"] }),
          op({ kind: "tags", tags: ["ns:0", "team:docs"] }),
          op({ kind: "prefixes", prefixes: ["/page/B"] }),
        ],
        origin,
      ),
    ).toEqual([
      { tags: ["variants:/page/A/1", "ns:0", "team:docs"] },
      { files: ["https://archive.example/__tier/page/A/1"] },
      { prefixes: ["archive.example/__tier/page/B"] },
    ]);
    expect(zonePurgeBodies([op({ kind: "hosts", hosts: ["archive.example"] })], origin)).toEqual([
      { prefixes: ["archive.example/__tier"] },
    ]);
  });

  it("calls the zone's purge endpoint with the token, and fails (so the queue retries) unless the API reports success", async () => {
    const settings = settingsOf(
      production({
        CF_ZONE_ID: "0123456789abcdef0123456789abcdef",
        CF_PURGE_TOKEN: "tok",
        PUBLIC_ORIGIN: "https://archive.example",
      }),
    );
    const calls: Array<{ url: string; auth: string | null; body: unknown }> = [];
    const answer = (ok: boolean) => async (url: RequestInfo | URL, init?: RequestInit) => {
      calls.push({
        url: url instanceof Request ? url.url : String(url),
        auth: new Headers(init?.headers).get("authorization"),
        body: JSON.parse(init?.body as string),
      });
      return Response.json(
        ok ? { success: true, errors: [] } : { success: false, errors: [{ code: 1134, message: "rate limited" }] },
        { status: ok ? 200 : 429 },
      );
    };
    await zonePurge(settings, [event("Page", { kind: "page" }, 1)], answer(true));
    expect(calls[0]).toEqual({
      url: "https://api.cloudflare.com/client/v4/zones/0123456789abcdef0123456789abcdef/purge_cache",
      auth: "Bearer tok",
      body: { tags: ["page:Page"] },
    });
    await expect(zonePurge(settings, [event("Page", { kind: "page" }, 2)], answer(false))).rejects.toThrow(
      /429: rate limited/,
    );
  });

  it("leaves the lower tier pending, with the reason, when the purge API is not configured", async () => {
    const target = lowerTargets(production())[0]!;
    await expect(
      applyAt(production(), target, "enam-q0", { events: [event("Page", { kind: "page" }, 1)] }),
    ).rejects.toBeInstanceOf(ZonePurgeNotConfigured);
  });
});
