/**
 * What a token holder can learn or guess. Guessing tokens costs the guesser:
 * past the failed-authentication allowance a client is refused before its
 * token is looked at, on every route that takes one, an IPv6 client counted
 * by its /64. Weak tokens are refused at configuration. And the audit log
 * (operators' purges: who purged what) follows one rule on the API and the
 * dashboard: the purge scope reads it, a write-only token does not.
 */
import { describe, expect, it } from "vitest";
import { append, linearHistory, request } from "../support/archive.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import { dashboard, get, login } from "../dashboard/support/dashboard.ts";

const from = (ip: string) => ({ "cf-connecting-ip": ip });

async function operatorPurge(): Promise<string> {
  const res = await request("/api/purges", {
    method: "POST",
    headers: { ...bearer(TOKENS.operator), "content-type": "application/json", "cf-connecting-ip": "203.0.113.200" },
    body: JSON.stringify({ tags: ["secret-campaign"] }),
  });
  expect(res.status).toBe(202);
  return (await res.json<{ id: string }>()).id;
}

describe("token guessing", () => {
  it("a client past 10 failed authentications gets 429 with Retry-After on every route, even with a good token; others do not", async () => {
    const guesser = from("198.51.100.77");
    const statuses: number[] = [];
    const routes = ["/api/purges", "/api/tiers", "/api/pages/X/stats", "/api/purges/enam-q0:1"];
    for (let i = 0; i < 12; i++)
      statuses.push(
        (
          await request(routes[i % routes.length]!, {
            headers: { ...guesser, ...bearer(`guess-${i}-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`) },
          })
        ).status,
      );
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual([429, 429]);
    const blocked = await request("/api/tiers", { headers: { ...guesser, ...bearer(TOKENS.operator) } });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBe("60");
    expect((await blocked.json<{ code: string }>()).code).toBe("auth_rate_limited");
    expect(
      (await request("/api/tiers", { headers: { ...from("198.51.100.78"), ...bearer(TOKENS.operator) } })).status,
    ).toBe(200);
  });

  it("counts an IPv6 client by its /64: rotating the interface id does not buy more guesses", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (
          await request("/api/tiers", {
            headers: {
              ...from(`2001:db8:77:${i === 0 ? "0" : "0000"}::${(i + 1).toString(16)}`),
              ...bearer(`guess-v6-${i}-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb`),
            },
          })
        ).status,
      );
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    expect(
      (await request("/api/tiers", { headers: { ...from("2001:db8:77:1::1"), ...bearer(TOKENS.operator) } })).status,
    ).toBe(200);
  });

  it("good tokens are never counted: a busy writer is not slowed", async () => {
    const writer = from("198.51.100.90");
    for (let i = 0; i < 15; i++)
      expect((await request("/api/tiers", { headers: { ...writer, ...bearer(TOKENS.operator) } })).status).toBe(200);
  });

  it.each([
    ["16 characters", "abcdefghijklmnop"],
    ["long but few different characters", "ab".repeat(24)],
    ["a word and a date", "password-2024-01-01-password-2024"],
  ])("refuses a configured token that is too weak (%s): 503 naming the setting, never the token", async (_, weak) => {
    const { env } = await import("cloudflare:test");
    const { app } = await import("../../../workers/app.ts");
    const { createExecutionContext } = await import("cloudflare:test");
    const API_TOKENS = JSON.stringify([{ name: "weak", token: weak, scopes: ["purge"] }]);
    const res = await app.fetch(
      new Request("http://archive.test/api/tiers", { headers: bearer(weak) }),
      { ...env, API_TOKENS },
      createExecutionContext(),
    );
    expect(res.status).toBe(503);
    const body = await res.text();
    expect(body).toContain("API_TOKENS");
    expect(body).not.toContain(weak);
  });
});

describe("the audit log follows one rule", () => {
  it("a write-only token cannot read an operator's purge by id, as it cannot list them; it can follow its own write's purge", async () => {
    const id = await operatorPurge();
    const asWriter = await request(`/api/purges/${encodeURIComponent(id)}`, { headers: bearer(TOKENS.write) });
    expect(asWriter.status).toBe(403);
    const text = await asWriter.text();
    expect(text).not.toContain("secret-campaign");
    expect(text).not.toContain("test-operator");
    expect((await request("/api/purges", { headers: bearer(TOKENS.write) })).status).toBe(403);
    expect((await request(`/api/purges/${encodeURIComponent(id)}`, { headers: bearer(TOKENS.purge) })).status).toBe(
      200,
    );
    const write = await append("Audit_rule_page", linearHistory(1));
    const writePurge = (await write.json<{ purges: string[] }>()).purges[0]!;
    expect(
      (await request(`/api/purges/${encodeURIComponent(writePurge)}`, { headers: bearer(TOKENS.write) })).status,
    ).toBe(200);
  });

  it("a write-only dashboard session sees no audit log: not on the home page, not the list, not an operator's purge", async () => {
    const id = await operatorPurge();
    const s = await login(TOKENS.write);
    const home = await (await get("/dashboard", s)).text();
    expect(home).not.toContain("secret-campaign");
    expect(home).not.toContain("Latest purges");
    expect((await get("/dashboard/purges", s)).status).toBe(403);
    const page = await get(`/dashboard/purges/${encodeURIComponent(id)}`, s);
    expect(page.status).toBe(403);
    expect(await page.text()).not.toContain("secret-campaign");
    const json = await dashboard(`/dashboard/api/purges/${encodeURIComponent(id)}`, { headers: { cookie: s.cookie } });
    expect(json.status).toBe(403);
    // The operator's session sees it.
    const op = await login(TOKENS.operator);
    expect(await (await get("/dashboard/purges", op)).text()).toContain("secret-campaign");
  });
});
