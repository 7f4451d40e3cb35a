import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { allTiers, tierName } from "../../../src/bindings.ts";
import { topologyOf } from "../../../src/config/topology.ts";
import { append, linearHistory } from "../support/archive.ts";
import { holdPurges } from "../support/hold-purges.ts";
import { expectProblemCode } from "../support/problems.ts";
import { waitForAck } from "../support/tiers.ts";
import { dashboard, get, login } from "./support/dashboard.ts";

/** Every tier a purge must reach, from the topology: each colo's lower tier, each regional and upper TierCache. */
const EVERY_TIER = [
  ...[...topologyOf(env).regionOfColo.keys()].map((colo) => `lower/${colo}`),
  ...allTiers(env).map(tierName),
].sort();

const tiersOnPage = (html: string) => [...html.matchAll(/<tr data-tier="([^"]+)">/g)].map((m) => m[1]!).sort();

async function writeWithPurge(page: string): Promise<string> {
  const res = await append(page, linearHistory(1));
  expect(res.status).toBe(201);
  return (await res.json<{ purges: string[] }>()).purges[0]!;
}

describe("a purge's page", () => {
  it("while pending shows every tier with its state, refreshes itself without scripts and loads the live script", async () => {
    const page = "Dashboard_pending_purge";
    const held = holdPurges(page);
    try {
      const s = await login();
      const id = await writeWithPurge(page);
      const res = await get(`/dashboard/purges/${encodeURIComponent(id)}`, s);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(tiersOnPage(html)).toEqual(EVERY_TIER);
      expect(EVERY_TIER.length).toBeGreaterThan(60);
      expect(html).toMatch(/<noscript><meta http-equiv="refresh" content="2"\/?><\/noscript>/);
      // Loaded under this response's nonce, the only way the dashboard's CSP admits a script.
      const nonce = /script-src 'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1];
      expect(nonce).toBeTruthy();
      expect(html).toContain(`<script nonce="${nonce}" src="/dashboard/live.js" defer="">`);
      expect(html).toMatch(/data-field="overall" class="pending">pending</);
      expect(html).toMatch(/<div hidden="">\s*<dt>Time to completion/);

      const live = await get(`/dashboard/api/purges/${encodeURIComponent(id)}`, s);
      expect(live.status).toBe(200);
      const view = await live.json<{ state: string; rows: Array<{ tier: string; state: string }> }>();
      expect(view.state).toBe("pending");
      expect(view.rows.map((r) => r.tier).sort()).toEqual(EVERY_TIER);
    } finally {
      held.release();
    }
  });

  it("once complete shows every tier acknowledged and the time to completion, and stops refreshing", async () => {
    const s = await login();
    const id = await writeWithPurge("Dashboard_complete_purge");
    await waitForAck(id);
    const html = await (await get(`/dashboard/purges/${encodeURIComponent(id)}`, s)).text();
    expect(tiersOnPage(html)).toEqual(EVERY_TIER);
    expect(html.match(/data-field="state" class="ok">acknowledged</g)?.length).toBe(EVERY_TIER.length);
    expect(html).toContain(`${EVERY_TIER.length} of ${EVERY_TIER.length} tiers acknowledged`);
    expect(html).toMatch(/<div>\s*<dt>Time to completion<\/dt>\s*<dd data-field="took">\d+(\.\d+)? m?s<\/dd>/);
    expect(html).not.toContain("http-equiv");
    expect(html).not.toContain("live.js");
  });

  it("answers a purge that does not exist with a 404 page, and its JSON only to a session", async () => {
    const s = await login();
    const missing = await get("/dashboard/purges/enam-q0%3A999999", s);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('role="alert"');
    const anonymous = await dashboard("/dashboard/api/purges/enam-q0%3A1");
    await expectProblemCode(anonymous, 401, "unauthenticated");
  });

  it("serves the live script as a same-origin file under a CSP that admits scripts by nonce only, no inline script", async () => {
    const res = await dashboard("/dashboard/live.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(await res.text()).toContain("data-purge-status");
    const s = await login();
    const csp = (await get("/dashboard", s)).headers.get("content-security-policy")!;
    expect(csp).toMatch(/script-src 'nonce-[^']+'(;|$)/);
    expect(csp).not.toMatch(/script-src[^;]*'self'/);
    expect(csp).not.toContain("unsafe-inline");
  });
});
