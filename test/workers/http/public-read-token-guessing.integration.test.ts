/**
 * In production a bearer token sent on a public read is checked (a valid one
 * gets the debug headers), so it must cost a guesser what it costs on every
 * other route: each unknown token counts against the client, and past the
 * failed-authentication allowance (AUTH_FAILURE_RATE, 10 a minute) the
 * client gets the same 429 problem, on reads and token routes alike.
 * Clients reaching the Worker as IPv4-mapped IPv6 addresses are counted by
 * the IPv4 address they map, not all together in one /64.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import "../../../src/codec/install-worker.ts";
import { app } from "../../../workers/app.ts";
import { bearer, TOKENS } from "../support/tokens.ts";

const ORIGIN = "http://archive.test";
const production = { ...env, ENVIRONMENT: "production", PUBLIC_ORIGIN: ORIGIN } as unknown as Env;

function inProduction(path: string, headers: Record<string, string>): Promise<Response> {
  return Promise.resolve(
    app.fetch(new Request(`${ORIGIN}${path}`, { headers, redirect: "manual" }), production, createExecutionContext()),
  );
}

/** A public read (the latest of a page nobody wrote: read through the tiers, debug headers and all). */
const READ = "/page/Never_written_by_anyone";
const guess = (i: number) => bearer(`guess-${i}-cccccccccccccccccccccccccccccccc`);

async function statusesOf(count: number, ip: (i: number) => string, path = READ): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++)
    statuses.push((await inProduction(path, { "cf-connecting-ip": ip(i), ...guess(i) })).status);
  return statuses;
}

describe("token guessing on public reads", () => {
  it("a valid token on a public read gets the debug headers, an unknown one does not", async () => {
    const good = await inProduction(READ, { "cf-connecting-ip": "198.51.100.140", ...bearer(TOKENS.operator) });
    expect(good.status).toBe(404);
    expect(good.headers.has("x-palimpsest-tier")).toBe(true);
    const bad = await inProduction(READ, { "cf-connecting-ip": "198.51.100.141", ...guess(0) });
    expect(bad.status).toBe(404);
    expect(bad.headers.has("x-palimpsest-tier")).toBe(false);
  });

  it("counts each unknown token: past 10 the client gets 429 auth_rate_limited, on reads and token routes alike", async () => {
    const guesser = "198.51.100.150";
    const statuses = await statusesOf(12, () => guesser);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(404));
    expect(statuses.slice(10)).toEqual([429, 429]);
    for (const [path, token] of [
      [READ, TOKENS.operator],
      ["/api/tiers", TOKENS.operator],
    ] as const) {
      const refused = await inProduction(path, { "cf-connecting-ip": guesser, ...bearer(token) });
      expect(refused.status, path).toBe(429);
      expect(refused.headers.get("content-type"), path).toMatch(/^application\/problem\+json/);
      expect(refused.headers.get("retry-after"), path).toBe("60");
      expect((await refused.json<{ code: string }>()).code, path).toBe("auth_rate_limited");
    }
    // Without a token the read stays public; another client is not touched.
    expect((await inProduction(READ, { "cf-connecting-ip": guesser })).status).toBe(404);
    const other = await inProduction(READ, { "cf-connecting-ip": "198.51.100.151", ...bearer(TOKENS.operator) });
    expect(other.status).toBe(404);
    expect(other.headers.has("x-palimpsest-tier")).toBe(true);
  });

  it("counts an IPv4-mapped client as its IPv4 address: its failures are the plain IPv4 client's, not its neighbours'", async () => {
    // Eleven guesses from one IPv4 client, written three ways: one client, over the allowance.
    const forms = ["::ffff:192.0.2.60", "::ffff:c000:23c", "192.0.2.60"];
    const statuses = await statusesOf(11, (i) => forms[i % forms.length]!);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(404));
    expect(statuses[10]).toBe(429);
    // Its IPv4-mapped neighbours are other clients, with their own allowance.
    for (const neighbour of ["::ffff:192.0.2.61", "::ffff:c000:23e", "192.0.2.62"]) {
      const res = await inProduction(READ, { "cf-connecting-ip": neighbour, ...bearer(TOKENS.operator) });
      expect(res.status, neighbour).toBe(404);
      expect(res.headers.has("x-palimpsest-tier"), neighbour).toBe(true);
    }
  });
});
