/**
 * A page read says where its time went, hop by hop, in `Server-Timing`
 * (src/http/server-timing.ts): a debug header, so in production only a
 * request with a valid token gets it, as with `x-read-cost`.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import "../../../src/codec/install-worker.ts";
import { brotliDecompress } from "../../../src/codec/index.ts";
import { HOPS, parseServerTiming } from "../../../src/http/server-timing.ts";
import { app } from "../../../workers/app.ts";
import { appendOk, linearHistory } from "../support/archive.ts";
import { bearer, TOKENS } from "../support/tokens.ts";

const ORIGIN = "http://archive.test";
const production = { ...env, ENVIRONMENT: "production", PUBLIC_ORIGIN: ORIGIN } as unknown as Env;

function inProduction(path: string, headers: Record<string, string>): Promise<Response> {
  return Promise.resolve(
    app.fetch(new Request(`${ORIGIN}${path}`, { headers, redirect: "manual" }), production, createExecutionContext()),
  );
}

describe("Server-Timing on page reads", () => {
  it("names each hop of a read that reached the origin for a token holder, and only the lower tier once it is kept there", async () => {
    await appendOk(
      "Server_timed_page",
      linearHistory(4, 1, (i) => `== Revision ${i} ==\n${"Some text of the page. ".repeat(40)}${i}\n`),
    );
    const operator = { "cf-connecting-ip": "198.51.100.170", ...bearer(TOKENS.operator) };
    const cold = await inProduction("/page/Server_timed_page/3", operator);
    expect(cold.status).toBe(200);
    await cold.arrayBuffer();
    const hops = parseServerTiming(cold.headers.get("server-timing"));
    // A read that went all the way down meets every hop there is: lower and tier to decode, hash and encode.
    expect(HOPS).toHaveLength(10);
    expect(Object.keys(hops)).toEqual(expect.arrayContaining([...HOPS]));
    for (const [hop, ms] of Object.entries(hops)) expect(ms, hop).toBeGreaterThanOrEqual(0);
    // The origin's parts happen inside it.
    expect(hops.origin!).toBeGreaterThanOrEqual(hops.locate! + hops.blob! + hops.decode! + hops.hash! - 0.05);

    // Read again: the colo's Cache API has it, and nothing below is met.
    let again = await inProduction("/page/Server_timed_page/3", operator);
    for (let i = 0; i < 20 && again.headers.get("x-palimpsest-tier") !== "lower"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await inProduction("/page/Server_timed_page/3", operator);
    }
    expect(again.headers.get("x-palimpsest-tier")).toBe("lower");
    expect(Object.keys(parseServerTiming(again.headers.get("server-timing")))).toEqual(["lower"]);
  });

  it("has no encode hop where no tier keeps the br body (TOPOLOGY disabled), and a br client still gets br", async () => {
    const text = `${"A page read with the tiers off. ".repeat(60)}\n`;
    await appendOk(
      "Untiered_page",
      linearHistory(1, 1, () => text),
    );
    const topology = (env as unknown as { TOPOLOGY: object }).TOPOLOGY;
    const untiered = { ...env, TOPOLOGY: { ...topology, enabled: false } } as unknown as Env;
    const res = await app.fetch(
      new Request(`${ORIGIN}/page/Untiered_page/1`, { headers: { "accept-encoding": "br" } }),
      untiered,
      createExecutionContext(),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("x-palimpsest-tier")).toBe("origin");
    expect(res.headers.get("content-encoding")).toBe("br");
    const body = new Uint8Array(await res.arrayBuffer());
    expect(new TextDecoder().decode(brotliDecompress(body))).toBe(text);
    const hops = parseServerTiming(res.headers.get("server-timing"));
    expect(Object.keys(hops)).toEqual(expect.arrayContaining(["origin", "locate", "blob", "decode", "hash"]));
    expect(hops).not.toHaveProperty("encode");
  });

  it("is absent on an anonymous read in production", async () => {
    await appendOk("Timed_quietly", linearHistory(2));
    const anonymous = await inProduction("/page/Timed_quietly/2", { "cf-connecting-ip": "198.51.100.171" });
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.has("server-timing")).toBe(false);
    expect(anonymous.headers.has("x-read-cost")).toBe(false);
  });
});
