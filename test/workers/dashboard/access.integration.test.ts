import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { sign } from "hono/utils/jwt/jwt";
import { dashboard } from "./support/dashboard.ts";

const TEAM = "https://palimpsest-test.cloudflareaccess.com";
const AUD = "0123456789abcdef-test-aud";
const ACCESS = { ACCESS_TEAM_DOMAIN: TEAM, ACCESS_AUD: AUD };
const CERTS = `${TEAM}/cdn-cgi/access/certs`;

let privateJwk: JsonWebKey & { kid: string; alg: "RS256" };
let publicJwk: JsonWebKey & { kid: string; alg: "RS256" };
let certFetches = 0;

beforeAll(async () => {
  // A key pair of our own stands in for the team's: the certs endpoint below publishes its public half.
  const pair = (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  privateJwk = {
    ...((await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey),
    kid: "test-kid",
    alg: "RS256",
  };
  publicJwk = {
    ...((await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey),
    kid: "test-kid",
    alg: "RS256",
  };
});

function serveCerts() {
  const real = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url !== CERTS) return real(input, init);
    certFetches++;
    return Response.json({ keys: [publicJwk] });
  });
}

afterEach(() => vi.restoreAllMocks());

const now = () => Math.floor(Date.now() / 1000);
const assertion = (claims: Record<string, unknown>) =>
  sign({ iss: TEAM, aud: [AUD], email: "alice@example.com", iat: now(), exp: now() + 600, ...claims }, privateJwk);

describe("Cloudflare Access in front of the dashboard", () => {
  it("logs in the Access identity by its email, with the purge scope, and sets the session cookie", async () => {
    serveCerts();
    const before = certFetches;
    const res = await dashboard("/dashboard", { headers: { "cf-access-jwt-assertion": await assertion({}) } }, ACCESS);
    expect(res.status).toBe(200);
    expect(certFetches).toBe(before + 1);
    const html = await res.text();
    expect(html).toContain("alice@example.com");
    expect(html).toContain('action="/dashboard/purges"');
    expect(res.headers.get("set-cookie")).toMatch(/^palimpsest_session=.*; HttpOnly; Secure; SameSite=Strict/);
  });

  it("refuses an assertion for another application, from another team, expired or signed by another key", async () => {
    serveCerts();
    const stranger = (await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign"],
    )) as CryptoKeyPair;
    const strangerJwk = {
      ...((await crypto.subtle.exportKey("jwk", stranger.privateKey)) as JsonWebKey),
      kid: "test-kid",
      alg: "RS256",
    };
    const forged = await sign(
      { iss: TEAM, aud: [AUD], email: "mallory@example.com", iat: now(), exp: now() + 600 },
      strangerJwk,
    );
    for (const jwt of [
      await assertion({ aud: ["another-app"] }),
      await assertion({ iss: "https://other-team.cloudflareaccess.com" }),
      await assertion({ exp: now() - 60 }),
      forged,
    ]) {
      const res = await dashboard("/dashboard", { headers: { "cf-access-jwt-assertion": jwt } }, ACCESS);
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/dashboard/login");
      expect(res.headers.get("set-cookie")).toBeNull();
    }
  });

  it("ignores the header when Access is not configured", async () => {
    serveCerts();
    const before = certFetches;
    const res = await dashboard("/dashboard", { headers: { "cf-access-jwt-assertion": await assertion({}) } });
    expect(res.status).toBe(303);
    expect(certFetches).toBe(before);
  });
});
