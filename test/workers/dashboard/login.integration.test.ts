import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TOKENS } from "../support/tokens.ts";
import { csrfOf, dashboard, get, login, post, sessionCookie } from "./support/dashboard.ts";

/** The cookie's attributes, by lower-case name, values as sent. */
function attributes(setCookie: string): Map<string, string> {
  const [, ...parts] = setCookie.split(/;\s*/);
  return new Map(parts.map((p) => [p.split("=")[0]!.toLowerCase(), p.split("=").slice(1).join("=")]));
}

describe("dashboard login", () => {
  it("with a good token sets a session cookie: HttpOnly, Secure, SameSite=Strict, Path=/dashboard, eight hours", async () => {
    const res = await post("/dashboard/login", { token: TOKENS.operator });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard");
    const attrs = attributes(res.headers.get("set-cookie")!);
    expect([...attrs.keys()].sort()).toEqual(["expires", "httponly", "max-age", "path", "samesite", "secure"]);
    expect(attrs.get("path")).toBe("/dashboard");
    expect(attrs.get("samesite")).toBe("Strict");
    expect(Number(attrs.get("max-age"))).toBeGreaterThan(8 * 3600 - 5);
    expect(Number(attrs.get("max-age"))).toBeLessThanOrEqual(8 * 3600);
  });

  it("on localhost leaves out Secure, which browsers would not keep over plain HTTP", async () => {
    const res = await post("/dashboard/login", { token: TOKENS.operator }, {}, {}, "http://localhost:8787");
    expect(res.status).toBe(303);
    const attrs = attributes(res.headers.get("set-cookie")!);
    expect(attrs.has("secure")).toBe(false);
    expect(attrs.has("httponly")).toBe(true);
  });

  it("ends the session when the token expires, if that is sooner than eight hours", async () => {
    const expires = new Date(Date.now() + 3600_000).toISOString();
    const API_TOKENS = JSON.stringify([
      { name: "short-lived", token: "short-lived-token-0123456789abcdefABCD", scopes: ["purge"], expires },
    ]);
    const res = await post("/dashboard/login", { token: "short-lived-token-0123456789abcdefABCD" }, {}, { API_TOKENS });
    expect(res.status).toBe(303);
    const maxAge = Number(attributes(res.headers.get("set-cookie")!).get("max-age"));
    expect(maxAge).toBeGreaterThan(3590);
    expect(maxAge).toBeLessThanOrEqual(3600);
  });

  it("refuses an expired token with a message, and sets no cookie", async () => {
    const res = await post("/dashboard/login", { token: TOKENS.expired });
    expect(res.status).toBe(401);
    expect(res.headers.get("set-cookie")).toBeNull();
    const html = await res.text();
    expect(html).toMatch(/role="alert"[^>]*>That token has expired/);
    expect(html).toContain('aria-describedby="token-hint token-error"');
  });

  it("refuses an unknown token with a message, and sets no cookie", async () => {
    const res = await post("/dashboard/login", { token: "not-a-token-anyone-issued" });
    expect(res.status).toBe(401);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await res.text()).toContain("That token is not one this archive issued");
  });

  it("opens the dashboard with the session, and sends a visitor without one to the login", async () => {
    const anonymous = await dashboard("/dashboard/storage");
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toBe("/dashboard/login");
    const s = await login();
    const res = await get("/dashboard", s);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("test-operator");
    expect(html).toContain('<html lang="en">');
    // Scripts by this response's nonce only: 'self' would admit archived javascript revisions under /page/.
    expect(res.headers.get("content-security-policy")).toMatch(/script-src 'nonce-[^']+'(;|$)/);
    expect(res.headers.get("content-security-policy")).not.toContain("'self' ");
  });

  it("ends a session at once when its token is removed from API_TOKENS", async () => {
    const s = await login();
    const revoked = JSON.stringify(
      (JSON.parse(env.API_TOKENS) as Array<{ name: string }>).filter((t) => t.name !== "test-operator"),
    );
    const res = await dashboard("/dashboard", { headers: { cookie: s.cookie } }, { API_TOKENS: revoked });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/login");
    expect((await get("/dashboard", s)).status).toBe(200);
  });

  it("refuses a cookie that was altered", async () => {
    const s = await login();
    const [name, value] = s.cookie.split("=") as [string, string];
    // The cookie names a server-side session; another id under the same signature is not ours.
    const sid = decodeURIComponent(value.slice(0, value.lastIndexOf(".")));
    const forged = `${sid.slice(0, -1)}${sid.endsWith("A") ? "B" : "A"}`;
    const res = await dashboard("/dashboard", {
      headers: { cookie: `${name}=${encodeURIComponent(forged)}${value.slice(value.lastIndexOf("."))}` },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/login");
  });

  it("logs out with the form, clearing the cookie; without its CSRF token logout does nothing", async () => {
    const s = await login();
    const refused = await post("/dashboard/logout", {}, { cookie: s.cookie });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("set-cookie")).toBeNull();
    const res = await post("/dashboard/logout", { csrf: s.csrf }, { cookie: s.cookie });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/login");
    const cleared = res.headers.get("set-cookie")!;
    expect(cleared).toMatch(/^palimpsest_session=;/);
    expect(attributes(cleared).get("max-age")).toBe("0");
    expect(attributes(cleared).get("path")).toBe("/dashboard");
  });

  it("limits login attempts per client address: 429 with Retry-After, other addresses unaffected", async () => {
    const headers = { "cf-connecting-ip": "198.51.100.7" };
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await post("/dashboard/login", { token: "wrong-token-guess-0000" }, headers)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    const limited = await post("/dashboard/login", { token: TOKENS.operator }, headers);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(limited.headers.get("set-cookie")).toBeNull();
    expect(await limited.text()).toContain("Too many failed authentications");
    expect((await post("/dashboard/login", { token: TOKENS.operator })).status).toBe(303);
  });

  it("answers 503 saying to set SESSION_SECRET when it is empty", async () => {
    const res = await post("/dashboard/login", { token: TOKENS.operator }, {}, { SESSION_SECRET: "" });
    expect(res.status).toBe(503);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await res.text()).toContain("SESSION_SECRET is not set");
  });

  it("puts the session's CSRF token in every form, and a different one in another session", async () => {
    const a = await login();
    const b = await login();
    expect(a.csrf).not.toBe(b.csrf);
    const html = await (await get("/dashboard/storage", a)).text();
    expect(csrfOf(html)).toBe(a.csrf);
    expect(sessionCookie(await post("/dashboard/login", { token: TOKENS.purge }))).toMatch(/^palimpsest_session=/);
  });
});
