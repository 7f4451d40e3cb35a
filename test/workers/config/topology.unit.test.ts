import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ProblemError } from "../../../src/http/problem.ts";
import { coloOf } from "../../../src/config/colo.ts";
import { parseTopology, topologyOf } from "../../../src/config/topology.ts";

const configured = (env as unknown as { TOPOLOGY: Record<string, unknown> }).TOPOLOGY;

describe("topology configuration", () => {
  it("accepts the configuration in wrangler.toml and maps colos to regions", () => {
    const t = parseTopology(configured);
    expect(t.regionOfColo.get("SYD")).toBe("oc");
    expect(Object.keys(t.regions)).toHaveLength(9);
  });

  it("rejects a broken configuration with an error naming the field", () => {
    const regions = configured.regions as Record<string, { colos: string[] }>;
    expect(() => parseTopology({ ...configured, refreshSeconds: 0 })).toThrow(/refreshSeconds/);
    expect(() => parseTopology({ ...configured, upperRegion: "mars" })).toThrow(/upperRegion/);
    const { me: _me, ...eight } = regions;
    expect(() => parseTopology({ ...configured, regions: eight })).toThrow(/regions\.me/);
    expect(() =>
      parseTopology({ ...configured, regions: { ...regions, me: { ...regions.me!, colos: ["SYD"] } } }),
    ).toThrow(/colo SYD is in both/);
  });
});

describe("topologyOf", () => {
  it("parses each configuration once, however the callers holding copies of it take turns", () => {
    // The Worker and each Durable Object class hold their own copy of TOPOLOGY.
    const worker = { TOPOLOGY: structuredClone(configured) } as unknown as Env;
    const store = { TOPOLOGY: structuredClone(configured) } as unknown as Env;
    const first = topologyOf(worker);
    expect(topologyOf(store)).not.toBe(first);
    expect(topologyOf(worker)).toBe(first);
    expect(topologyOf(store)).toBe(topologyOf(store));
  });
});

describe("colo simulation header", () => {
  const asked = (colo: string) => new Request("http://x/", { headers: { "x-palimpsest-colo": colo } });

  it("picks the colo in development", () => {
    expect(coloOf(asked("NRT"), env)).toEqual({ colo: "NRT", region: "apac" });
  });

  it("is refused in production", () => {
    const production = { ...env, ENVIRONMENT: "production" } as unknown as Env;
    expect(() => coloOf(asked("NRT"), production)).toThrow(ProblemError);
    try {
      coloOf(asked("NRT"), production);
    } catch (err) {
      expect((err as ProblemError).code).toBe("simulation_disabled");
    }
  });
});
