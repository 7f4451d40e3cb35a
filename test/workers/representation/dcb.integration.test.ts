/**
 * RFC 9842 dictionary transport on revisions: each revision offers itself
 * as a dictionary for its page's revisions; a client that holds one and
 * offers dcb gets the next as a delta against it (made once, then from the
 * tiers), which our decoder turns back into the identity body; anything it
 * cannot use falls back to br.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { cacheTagsOf, deltaKey } from "../../../src/tiers/cache-key.ts";
import { LowerTier } from "../../../src/tiers/lower-tier.ts";
import { brotliDecompress, dcbDecompress, DCB_MAGIC } from "../../../src/codec/index.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { availableDictionary, variedProse } from "../support/dcb.ts";
import { waitForAck } from "../support/tiers.ts";
import { bearer, TOKENS } from "../support/tokens.ts";

const prose = variedProse({ seed: 42, lines: 120, editStride: 7, numbered: true });

async function bytes(res: Response): Promise<Uint8Array> {
  return new Uint8Array(await res.arrayBuffer());
}

const DCB = "gzip, deflate, br, zstd, dcb";

describe("dcb", () => {
  it("each revision says Use-As-Dictionary for its page's revisions and varies on Available-Dictionary", async () => {
    await appendOk("Dcb_offer", linearHistory(2, 1, prose));
    const res = await request("/page/Dcb_offer/1", { headers: { "accept-encoding": DCB } });
    expect(res.headers.get("content-encoding")).toBe("br");
    expect(res.headers.get("use-as-dictionary")).toBe('match="/page/Dcb_offer{/*}?"');
    expect(res.headers.get("vary")).toBe("Accept-Encoding, Available-Dictionary");
    await appendOk("Help:Dcb_offer", linearHistory(1, 1, prose));
    const colon = await request("/page/Help:Dcb_offer/1");
    // In a URL pattern, ":Dcb_offer" would be a named group matching anything: the colon is escaped.
    expect(colon.headers.get("use-as-dictionary")).toBe('match="/page/Help\\\\:Dcb_offer{/*}?"');
  });

  it("sends the next revision as a delta against the one the client holds, far smaller than br, cached in the tiers", async () => {
    await appendOk("Dcb_next", linearHistory(3, 1, prose));
    const held = await bytes(await request("/page/Dcb_next/1"));
    const identity2 = await bytes(await request("/page/Dcb_next/2"));
    const br = await bytes(await request("/page/Dcb_next/2", { headers: { "accept-encoding": "br" } }));
    const headers = {
      "accept-encoding": DCB,
      "available-dictionary": await availableDictionary(held),
      "x-palimpsest-colo": "LHR",
    };
    const res = await request("/page/Dcb_next/2", { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("dcb");
    expect(res.headers.get("vary")).toBe("Accept-Encoding, Available-Dictionary");
    expect(res.headers.get("use-as-dictionary")).toBe('match="/page/Dcb_next{/*}?"');
    const body = await bytes(res);
    expect(Number(res.headers.get("content-length"))).toBe(body.byteLength);
    expect(body.subarray(0, 4)).toEqual(DCB_MAGIC);
    expect(await dcbDecompress(body, held)).toEqual(identity2);
    expect(body.byteLength * 5).toBeLessThan(br.byteLength);
    expect(brotliDecompress(br)).toEqual(identity2);

    // Made once: the next read comes from this colo's lower tier, the same bytes.
    await new Promise((r) => setTimeout(r, 50));
    const again = await request("/page/Dcb_next/2", { headers });
    expect(again.headers.get("x-palimpsest-tier")).toBe("lower");
    expect(await bytes(again)).toEqual(body);

    // Its own representation: its own ETag, which revalidates.
    const etag = res.headers.get("etag")!;
    expect(etag).not.toBe(
      (await request("/page/Dcb_next/2", { headers: { "accept-encoding": "br" } })).headers.get("etag"),
    );
    expect((await request("/page/Dcb_next/2", { headers: { ...headers, "if-none-match": etag } })).status).toBe(304);
  });

  it("falls back to br for an unknown or foreign dictionary, a malformed one, or when dcb is not offered", async () => {
    await appendOk("Dcb_fallback", linearHistory(2, 1, prose));
    await appendOk(
      "Dcb_foreign",
      linearHistory(1, 1, (i) => prose(i + 7)),
    );
    const held = await bytes(await request("/page/Dcb_fallback/1"));
    const foreign = await bytes(await request("/page/Dcb_foreign/1"));
    const cases: Array<[string, Record<string, string>]> = [
      [
        "unknown",
        {
          "accept-encoding": DCB,
          "available-dictionary": await availableDictionary(new TextEncoder().encode("nothing stored")),
        },
      ],
      [
        "another page's revision",
        { "accept-encoding": DCB, "available-dictionary": await availableDictionary(foreign) },
      ],
      ["malformed", { "accept-encoding": DCB, "available-dictionary": "not-a-byte-sequence" }],
      ["dcb not offered", { "accept-encoding": "br", "available-dictionary": await availableDictionary(held) }],
      ["dcb refused", { "accept-encoding": "br, dcb;q=0", "available-dictionary": await availableDictionary(held) }],
    ];
    const identity = await bytes(await request("/page/Dcb_fallback/2"));
    for (const [why, headers] of cases) {
      const res = await request("/page/Dcb_fallback/2", { headers });
      expect([why, res.status, res.headers.get("content-encoding")]).toEqual([why, 200, "br"]);
      expect(brotliDecompress(await bytes(res))).toEqual(identity);
    }
  });

  it("is purged with its revision: an operator's purge of the revision's URL reaches its dcb bodies in every tier", async () => {
    await appendOk("Dcb_purged", linearHistory(2, 1, prose));
    const held = await bytes(await request("/page/Dcb_purged/1"));
    const headers = {
      "accept-encoding": DCB,
      "available-dictionary": await availableDictionary(held),
      "x-palimpsest-colo": "LHR",
    };
    await bytes(await request("/page/Dcb_purged/2", { headers }));
    await new Promise((r) => setTimeout(r, 50));
    expect((await request("/page/Dcb_purged/2", { headers })).headers.get("x-palimpsest-tier")).toBe("lower");
    // Where only tags and exact URLs can be purged (Cloudflare's purge API), the Cache-Tag the lower tier stores it under names its revision.
    const dictionary = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", held)), (b) =>
      b.toString(16).padStart(2, "0"),
    ).join("");
    const { hit } = await (await LowerTier.open(env, "LHR")).get(deltaKey("Dcb_purged", 2, dictionary));
    expect(cacheTagsOf(hit!.entry)).toContain("variants:/page/Dcb_purged/2");
    const res = await request("/api/purges", {
      method: "POST",
      headers: { ...bearer(TOKENS.operator), "content-type": "application/json", "x-palimpsest-colo": "LHR" },
      body: JSON.stringify({ files: ["http://archive.test/page/Dcb_purged/2"] }),
    });
    expect(res.status).toBe(202);
    await waitForAck((await res.json<{ id: string }>()).id);
    const after = await request("/page/Dcb_purged/2", { headers });
    expect(after.headers.get("content-encoding")).toBe("dcb");
    expect(after.headers.get("x-palimpsest-tier")).toBe("origin");
  });
});
