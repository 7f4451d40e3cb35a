import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { version } from "../../../package.json";
import { CODEC_BUILD } from "../../../src/codec/wasm/build-info.ts";
import { expectProblem } from "../support/problems.ts";

describe("edge worker", () => {
  it("reports health with the package version and codec build", async () => {
    const res = await exports.default.fetch("http://palimpsest.test/healthz");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      status: "ok",
      version,
      codec: { build: CODEC_BUILD.id, brotli: CODEC_BUILD.brotli, lz4: CODEC_BUILD.lz4 },
    });
  });

  it("answers an unknown path with a 404 problem", async () => {
    const res = await exports.default.fetch("http://palimpsest.test/no/such/page");
    await expectProblem(res, {
      status: 404,
      code: "not_found",
      title: "Not Found",
      detail: "No route for GET /no/such/page",
    });
  });

  it("rejects an over-long URL with a 414 problem naming the limit", async () => {
    const res = await exports.default.fetch(`http://palimpsest.test/${"a".repeat(9000)}`);
    expect(res.status).toBe(414);
    expect(await res.json()).toMatchObject({ code: "url_too_long", limit: { name: "http.maxUrlLength", value: 8192 } });
  });
});
