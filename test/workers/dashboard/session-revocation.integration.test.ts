/**
 * A dashboard session ends when its credential changes: the token rotated
 * under the same name, removed, cut to fewer scopes, or the session logged
 * out, whatever copies of the cookie exist. And a session cannot be forged:
 * the cookie names only a server-side session, and the secret that signs it
 * must be strong. Each test attacks as a holder of an old or copied cookie.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TOKENS } from "../support/tokens.ts";
import { dashboard, get, login, ORIGIN, post } from "./support/dashboard.ts";

type TokenSpec = { name: string; token: string; scopes: string[]; expires?: string };
const configured = () => JSON.parse(env.API_TOKENS) as TokenSpec[];
const withOperator = (change: (t: TokenSpec) => TokenSpec) =>
  JSON.stringify(configured().map((t) => (t.name === "test-operator" ? change(t) : t)));

/** Purges everything with the session, as the dashboard's form does; the status says whether it was taken. */
async function purgeEverything(
  s: { cookie: string; csrf: string },
  bindings: Record<string, unknown> = {},
): Promise<Response> {
  return post("/dashboard/purges", { csrf: s.csrf, kind: "everything", items: "" }, { cookie: s.cookie }, bindings);
}

describe("dashboard sessions end when their credential changes", () => {
  it("a token rotated under the same name (and cut to write) ends its old sessions: no page, no purge", async () => {
    const s = await login(TOKENS.operator);
    const rotated = withOperator((t) => ({
      ...t,
      token: "rotated-operator-token-5d9a1c7e3f0b8d2a6c4e",
      scopes: ["write"],
    }));
    const page = await dashboard("/dashboard", { headers: { cookie: s.cookie } }, { API_TOKENS: rotated });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/dashboard/login");
    const purge = await purgeEverything(s, { API_TOKENS: rotated });
    expect(purge.status).toBe(401);
  });

  it("a scope cut applies to a live session at once: a write-only session cannot purge", async () => {
    const s = await login(TOKENS.operator);
    const cut = withOperator((t) => ({ ...t, scopes: ["write"] }));
    const purge = await purgeEverything(s, { API_TOKENS: cut });
    expect(purge.status).toBe(403);
    // With the scope back, the same session purges.
    expect((await purgeEverything(s)).status).toBe(303);
  });

  it("a token that has since expired ends its session", async () => {
    const s = await login(TOKENS.operator);
    const expired = withOperator((t) => ({ ...t, expires: "2021-01-01T00:00:00Z" }));
    expect((await dashboard("/dashboard", { headers: { cookie: s.cookie } }, { API_TOKENS: expired })).status).toBe(
      303,
    );
  });

  it("logging out revokes the session on the server: a copied cookie is refused afterwards", async () => {
    const s = await login(TOKENS.operator);
    const copy = { ...s };
    const out = await post("/dashboard/logout", { csrf: s.csrf }, { cookie: s.cookie });
    expect(out.status).toBe(303);
    // The copy still has the cookie value the browser cleared.
    const page = await get("/dashboard", copy);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/dashboard/login");
    expect((await purgeEverything(copy)).status).toBe(401);
  });

  it("a cookie naming a session that was never started is refused, even signed with the real secret", async () => {
    // What a cracked or leaked secret would let an attacker sign: an Access session for anyone, or a made-up id.
    const { setSignedCookie } = await import("hono/cookie");
    const { Hono } = await import("hono");
    const values = [
      JSON.stringify({
        sid: "x".repeat(24),
        name: "mallory",
        scopes: ["write", "purge"],
        via: "access",
        expiresAt: Date.now() + 3600_000,
      }),
      "A".repeat(32),
    ];
    for (const value of values) {
      const forge = new Hono();
      forge.get(
        "/",
        async (c) => (
          await setSignedCookie(c, "palimpsest_session", value, env.SESSION_SECRET, { path: "/dashboard" }),
          c.body(null)
        ),
      );
      const set = (await forge.request("/")).headers.get("set-cookie")!;
      const cookie = set.split(";")[0]!;
      const res = await dashboard("/dashboard/purges", { headers: { cookie } });
      expect(res.status, value.slice(0, 20)).toBe(303);
    }
  });

  it.each([
    ["changeme", "changeme"],
    ["short", "0123456789abcdef"],
    ["long but repetitive", "a".repeat(64)],
  ])("refuses a weak SESSION_SECRET (%s) with 503, and logs no one in", async (_, secret) => {
    const res = await post("/dashboard/login", { token: TOKENS.operator }, {}, { SESSION_SECRET: secret });
    expect(res.status).toBe(503);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await res.text()).toContain("SESSION_SECRET is too weak");
  });

  it("refuses an Access session once Access is not configured", async () => {
    // An Access session can only start from a verified assertion; with Access unset, none is honoured.
    const res = await dashboard("/dashboard", { headers: { "cf-access-jwt-assertion": "e30.e30.sig" } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/login");
  });
});

describe("the origin the tests use", () => {
  it("is the one support.ts posts from", () => expect(ORIGIN).toBe("http://archive.test"));
});
